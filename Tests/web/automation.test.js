// @ts-check
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { conditionText, daysText, fireSummary, triggerBody, whenText } from "../../web/automation.js";
import { byId } from "./fixtures.js";

/** @param {Partial<import("../../web/types.js").Trigger>} more */
const trigger = (more) => ({ id: "t", name: "T", enabled: true, ...more });

/** @param {Partial<import("../../web/automation.js").TriggerForm>} more @returns {import("../../web/automation.js").TriggerForm} */
const form = (more) => ({
  name: "Evening", home: "h1", actionSets: ["dim"], when: "time", at: "22:30", days: "daily", dayPicks: [], offset: "",
  characteristic: "", range: null, target: null, forMinutes: "", onlyTime: "", onlyAfter: "22:00", onlyBefore: "06:00",
  onlyCharacteristic: "", onlyValue: null, ...more,
});

describe("automations in words", () => {
  test("days: named sets, and lists of days", () => {
    assert.equal(daysText("weekends"), "Saturday and Sunday");
    assert.equal(daysText(["mon", "tue", "wed", "thu", "fri"]), "Monday to Friday");
    assert.equal(daysText(["mon", "tue", "wed", "thu", "fri", "sat", "sun"]), "every day");
    assert.equal(daysText(["mon", "wed"]), "on Mon, Wed");
  });

  test("timers", () => {
    assert.equal(whenText(trigger({ timer: { recurrence: { at: "22:30" } } }), byId()), "At 22:30, every day");
    assert.equal(whenText(trigger({ timer: { recurrence: { at: "07:00", weekdays: ["sat", "sun"] }, time_zone: "Europe/Amsterdam" } }), byId()),
      "At 07:00, Saturday and Sunday (Europe/Amsterdam)");
    assert.equal(whenText(trigger({ timer: { recurrence: { every: 2, unit: "hours" } } }), byId()), "Every 2 hours");
    assert.equal(whenText(trigger({ timer: { fire_date: "2026-12-01T07:00" } }), byId()), "Once, at 2026-12-01T07:00");
  });

  test("the sun, with offsets before and after", () => {
    assert.equal(whenText(trigger({ events: [{ sun: "sunset" }] }), byId()), "sunset");
    assert.equal(whenText(trigger({ events: [{ sun: "sunset", offset: "-30m" }] }), byId()), "30m before sunset");
    assert.equal(whenText(trigger({ events: [{ sun: "sunrise", offset: "15m" }] }), byId()), "15m after sunrise");
  });

  test("changes, with values, ranges and how long they hold", () => {
    const events = [
      { characteristic: "bulb/light/on", value: true },
      { characteristic: "bulb/light/brightness", range: { min: 80 }, for: "5m" },
      { accessory: "sensor", service: "temperature", characteristic: "current_temperature" },
    ];
    assert.equal(whenText(trigger({ events }), byId()),
      "Desk lamp · Power becomes On; or Desk lamp · Brightness stays in 80–… for 5m; or Hall sensor · Current temperature changes");
  });

  test("conditions", () => {
    assert.equal(conditionText({ time: { after: "sunrise", before: "sunset" } }, byId()), "during the day");
    assert.equal(conditionText({ time: { after: "22:00" } }, byId()), "between 22:00 and midnight");
    assert.equal(conditionText({ all: [{ time: { after: "sunset", before: "sunrise" } }, { characteristic: "bulb/light/brightness", op: "<", value: 20 }] }, byId()),
      "at night and Desk lamp · Brightness is below 20 %");
    assert.equal(conditionText({ not: { any: [{ weekdays: "weekends" }, { characteristic: "plug/left/on", value: true }] } }, byId()),
      "not (Saturday and Sunday or Power strip · Left · Power is On)");
  });

  test("what a firing did", () => {
    assert.deepEqual(fireSummary({ id: "t", change: "fired", time: "", action_sets: [{ results: [{ status: "ok" }] }, {}] }), { text: "ran 2 scenes", failed: false });
    assert.deepEqual(fireSummary({ id: "t", change: "fired", time: "", action_sets: [{ results: [{ status: "error" }] }], disabled: true }),
      { text: "1 action failed, then turned itself off", failed: true });
  });
});

describe("the new automation form", () => {
  test("a time of day on the days picked", () => {
    assert.deepEqual(triggerBody(form({ days: "custom", dayPicks: ["mon", "fri"], at: "22:30:00" })),
      { name: "Evening", home: "h1", action_sets: ["dim"], timer: { recurrence: { at: "22:30", weekdays: ["mon", "fri"] } } });
    assert.throws(() => triggerBody(form({ days: "custom" })), { message: "Pick the days it fires." });
    assert.throws(() => triggerBody(form({ actionSets: [] })), { message: "Pick the scenes it runs." });
  });

  test("the sun, minutes as a duration", () => {
    assert.deepEqual(triggerBody(form({ when: "sunset", offset: "-20" })).events, [{ sun: "sunset", offset: "-20m" }]);
    assert.deepEqual(triggerBody(form({ when: "sunrise", offset: "0" })).events, [{ sun: "sunrise", offset: undefined }]);
  });

  test("a change: a range for numbers, a value otherwise, held for minutes", () => {
    const change = { when: "change", characteristic: "bulb/light/brightness" };
    assert.deepEqual(triggerBody(form({ ...change, range: { compare: "min", number: "80" }, forMinutes: "5" })).events,
      [{ characteristic: "bulb/light/brightness", range: { min: 80 }, for: "5m" }]);
    assert.deepEqual(triggerBody(form({ ...change, range: { compare: "any", number: "" } })).events,
      [{ characteristic: "bulb/light/brightness", for: undefined }]);
    assert.throws(() => triggerBody(form({ ...change, range: { compare: "max", number: "" } })), { message: "Give the value." });
    assert.deepEqual(triggerBody(form({ when: "change", characteristic: "bulb/light/on", target: { value: "true", choice: true } })).events,
      [{ characteristic: "bulb/light/on", value: true, for: undefined }]);
    assert.throws(() => triggerBody(form({ when: "change", characteristic: "bulb/light/on", target: { value: "", choice: true }, forMinutes: "3" })),
      { message: "\u201cStays so\u201d needs a value to stay at." });
  });

  test("only if: one condition as it is, two as all of them", () => {
    assert.deepEqual(triggerBody(form({ onlyTime: "night" })).conditions, { time: { after: "sunset", before: "sunrise" } });
    assert.deepEqual(triggerBody(form({ onlyTime: "between", onlyCharacteristic: "bulb/light/brightness", onlyValue: { op: "<", number: "30" } })).conditions,
      { all: [{ time: { after: "22:00", before: "06:00" } }, { characteristic: "bulb/light/brightness", op: "<", value: 30 }] });
    assert.throws(() => triggerBody(form({ onlyTime: "between", onlyBefore: "22:00" })), { message: "\u201cBetween two times\u201d needs two different times." });
    assert.equal(triggerBody(form({ onlyCharacteristic: "bulb/light/on" })).conditions, undefined);
  });
});
