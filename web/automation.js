// @ts-check
// Automations in words ("At 22:30, Monday to Friday"), and the trigger the new-automation form
// describes. Pure: the accessories are passed in, the form's fields are read by its view.

import { describePath, eventPath, formatPathValue } from "./paths.js";

/** @typedef {import("./types.js").Accessory} Accessory */
/** @typedef {import("./types.js").Trigger} Trigger */
/** @typedef {import("./types.js").TriggerEvent} TriggerEvent */
/** @typedef {import("./types.js").TriggerChange} TriggerChange */
/** @typedef {import("./types.js").Condition} Condition */
/** @typedef {import("./types.js").NewTrigger} NewTrigger */
/** @typedef {import("./types.js").Weekdays} Weekdays */
/** @typedef {import("./types.js").Value} Value */

/**
 * When it fires: its timer, or its events joined by "or".
 * @param {Trigger} trigger
 * @param {Map<string, Accessory>} byId
 */
export function whenText(trigger, byId) {
  if (trigger.timer) {
    const timer = trigger.timer;
    const r = timer.recurrence;
    const zone = timer.time_zone ? ` (${timer.time_zone})` : "";
    if (!r) return `Once, at ${timer.fire_date}${zone}`;
    if (r.every) return `Every ${r.every} ${r.unit}${timer.fire_date ? ` from ${timer.fire_date}` : ""}${zone}`;
    const days = daysText(r.weekdays || "daily");
    return `At ${r.at}, ${days}${zone}`;
  }
  return (trigger.events || []).map((event) => {
    if (event.sun) return `${event.offset ? `${event.offset} ` : ""}${event.sun}`.replace(/^-(\S+) /, "$1 before ").replace(/^\+?(\d\S*) (sun)/, "$1 after $2");
    let text = describePath(byId, eventPath(event));
    if (event.value !== undefined) text += ` ${event.for ? "is" : "becomes"} ${formatPathValue(byId, eventPath(event), event.value)}`;
    else if (event.range) text += ` ${event.for ? "stays in" : "enters"} ${event.range.min ?? "…"}–${event.range.max ?? "…"}`;
    else text += " changes";
    if (event.for) text += ` for ${event.for}`;
    return text;
  }).join("; or ");
}

/** @type {Record<string, string>} */
const DAY_NAMES = { mon: "Mon", tue: "Tue", wed: "Wed", thu: "Thu", fri: "Fri", sat: "Sat", sun: "Sun" };

/** @type {Record<string, string>} */
const DAY_SETS = { daily: "every day", weekdays: "Monday to Friday", weekends: "Saturday and Sunday" };

/**
 * ["mon", …, "fri"] → "Monday to Friday"; the API's names of day sets as they are.
 * @param {Weekdays} weekdays
 */
export function daysText(weekdays) {
  if (!Array.isArray(weekdays)) return DAY_SETS[weekdays] || String(weekdays);
  const key = [...weekdays].join(",");
  if (weekdays.length === 7) return "every day";
  if (key === "mon,tue,wed,thu,fri") return "Monday to Friday";
  if (key === "sat,sun") return "Saturday and Sunday";
  return `on ${weekdays.map((day) => DAY_NAMES[day] || day).join(", ")}`;
}

/** @type {Record<string, string>} */
const CONDITION_WORDS = { "=": "is", "!=": "is not", "<": "is below", "<=": "is at most", ">": "is above", ">=": "is at least" };

/**
 * "during the day and Desk lamp · Power is On".
 * @param {Condition} condition
 * @param {Map<string, Accessory>} byId
 * @returns {string}
 */
export function conditionText(condition, byId) {
  if (!condition || typeof condition !== "object") return String(condition);
  if (condition.all) return condition.all.map((c) => conditionText(c, byId)).join(" and ");
  if (condition.any) return `(${condition.any.map((c) => conditionText(c, byId)).join(" or ")})`;
  if (condition.not) return `not ${conditionText(condition.not, byId)}`;
  if (condition.time) {
    const { after, before } = condition.time;
    if (after === "sunrise" && before === "sunset") return "during the day";
    if (after === "sunset" && before === "sunrise") return "at night";
    return `between ${after || "midnight"} and ${before || "midnight"}`;
  }
  if (condition.weekdays) return daysText(condition.weekdays);
  if (condition.characteristic) {
    const path = eventPath(condition);
    const op = CONDITION_WORDS[condition.op || "="] || condition.op;
    return `${describePath(byId, path)} ${op} ${formatPathValue(byId, path, condition.value)}`;
  }
  return JSON.stringify(condition);
}

/**
 * What a firing did: "ran 2 scenes, then turned itself off", and whether anything failed.
 * @param {TriggerChange} fire
 */
export function fireSummary(fire) {
  const runs = fire.action_sets || [];
  const failed = runs.reduce((n, run) => n + (run.results || []).filter((r) => r.status !== "ok").length, 0);
  const parts = [failed ? `${failed} action${failed > 1 ? "s" : ""} failed` : `ran ${runs.length} scene${runs.length === 1 ? "" : "s"}`];
  if (fire.disabled) parts.push("then turned itself off");
  return { text: parts.join(", "), failed: failed > 0 };
}

/**
 * The new-automation form's fields, as its view reads them (strings as the inputs hold them).
 * @typedef {object} TriggerForm
 * @property {string} name
 * @property {string | null} home
 * @property {string[]} actionSets the scenes ticked
 * @property {string} when `time`, `change`, `sunrise` or `sunset`
 * @property {string} at
 * @property {string} days `daily`, `weekdays`, `weekends` or `custom`
 * @property {string[]} dayPicks the days ticked, for `custom`
 * @property {string} offset minutes after the sun event
 * @property {string} characteristic the path whose change fires it
 * @property {{compare: string, number: string} | null} range for a number: `min`, `max` or `any`, and the value
 * @property {{value: string, choice: boolean} | null} target otherwise: the value it becomes (a choice's is JSON)
 * @property {string} forMinutes
 * @property {string} onlyTime ``, `day`, `night` or `between`
 * @property {string} onlyAfter
 * @property {string} onlyBefore
 * @property {string} onlyCharacteristic
 * @property {{choice: string} | {text: string} | {op: string, number: string} | null} onlyValue
 */

/**
 * "15m" from a number of minutes in a field; nothing for none or 0.
 * @param {string} text
 */
function minutes(text) {
  const n = Number(text || 0);
  return Number.isFinite(n) && n !== 0 ? `${Math.trunc(n)}m` : undefined;
}

/**
 * The trigger the form describes, as POST /api/triggers takes it; throws the form's complaint.
 * @param {TriggerForm} form
 * @returns {NewTrigger}
 */
export function triggerBody(form) {
  /** @type {NewTrigger} */
  const body = { name: form.name, home: form.home || undefined };
  body.action_sets = form.actionSets;
  if (!body.action_sets.length) throw new Error("Pick the scenes it runs.");
  if (form.when === "time") {
    if (!form.at) throw new Error("Give the time of day.");
    /** @type {Weekdays} */
    let weekdays = form.days;
    if (weekdays === "custom") {
      weekdays = form.dayPicks;
      if (!weekdays.length) throw new Error("Pick the days it fires.");
    }
    body.timer = { recurrence: { at: form.at.slice(0, 5), weekdays } };
  } else if (form.when === "sunrise" || form.when === "sunset") {
    body.events = [{ sun: form.when, offset: minutes(form.offset) }];
  } else {
    /** @type {TriggerEvent} */
    const event = { characteristic: form.characteristic };
    if (!event.characteristic) throw new Error("Pick the characteristic.");
    if (form.range) {
      if (form.range.compare !== "any") {
        if (form.range.number === "") throw new Error("Give the value.");
        event.range = { [form.range.compare]: Number(form.range.number) };
      }
    } else if (form.target && form.target.value !== "") {
      event.value = form.target.choice ? JSON.parse(form.target.value) : form.target.value;
    }
    event.for = minutes(form.forMinutes);
    if (event.for && event.value === undefined && !event.range) throw new Error("\u201cStays so\u201d needs a value to stay at.");
    body.events = [event];
  }
  const conditions = conditionsOf(form);
  if (conditions.length) body.conditions = conditions.length === 1 ? conditions[0] : { all: conditions };
  return body;
}

/**
 * The form's "only if" part as the API's conditions (none, one, or two).
 * @param {TriggerForm} form
 * @returns {Condition[]}
 */
function conditionsOf(form) {
  /** @type {Condition[]} */
  const conditions = [];
  const time = form.onlyTime;
  if (time === "day") conditions.push({ time: { after: "sunrise", before: "sunset" } });
  if (time === "night") conditions.push({ time: { after: "sunset", before: "sunrise" } });
  if (time === "between") {
    const after = form.onlyAfter.slice(0, 5);
    const before = form.onlyBefore.slice(0, 5);
    if (!after || !before) throw new Error("Give both times of \u201cbetween two times\u201d.");
    if (after === before) throw new Error("\u201cBetween two times\u201d needs two different times.");
    conditions.push({ time: { after, before } });
  }
  const characteristic = form.onlyCharacteristic;
  const only = form.onlyValue;
  if (characteristic && only) {
    if ("choice" in only) conditions.push({ characteristic, op: "=", value: JSON.parse(only.choice) });
    else if ("text" in only) conditions.push({ characteristic, op: "=", value: only.text });
    else {
      if (only.number === "") throw new Error("Give the value the accessory is compared with.");
      conditions.push({ characteristic, op: only.op, value: Number(only.number) });
    }
  }
  return conditions;
}
