// @ts-check
// "New automation": when it fires (a time, a change, the sun), only if (time, an accessory), and
// the scenes it runs. The form's fields become a trigger in automation.js's triggerBody.

import { api, messageOf } from "../api.js";
import { notifyingPaths } from "../accessory.js";
import { triggerBody } from "../automation.js";
import { $, $$, append, checkedValues, clear, h } from "../dom.js";
import { reloadAutomations } from "../load.js";
import { describePath, findPath } from "../paths.js";
import { accessoriesOfHome, state } from "../store.js";
import { formatValue, unitText } from "../words.js";

/** @typedef {import("../types.js").Characteristic} Characteristic */
/** @typedef {import("../types.js").Value} Value */

const field = (/** @type {string} */ id) => $(`#${id}`, HTMLInputElement);
const choice = (/** @type {string} */ id) => $(`#${id}`, HTMLSelectElement);

/** Characteristics whose changes are events, named and sorted: [path, name]. */
function eventPaths() {
  return notifyingPaths(accessoriesOfHome())
    .map((path) => [path, describePath(state.byId, path)])
    .sort((a, b) => a[1].localeCompare(b[1], undefined, { sensitivity: "base" }));
}

/**
 * A number for a characteristic, labelled with its unit, starting at its value now.
 * @param {string} id
 * @param {Characteristic} characteristic
 */
function valueField(id, characteristic) {
  const unit = unitText(characteristic);
  return [
    h("label", { for: id }, `Value${unit ? ` (${unit})` : ""}`),
    h("input", { id, "data-testid": id, type: "number", step: "any", min: characteristic.min, max: characteristic.max,
      value: characteristic.value ?? "" })];
}

/**
 * @param {Characteristic} characteristic
 * @returns {Value[] | null}
 */
function choicesOf(characteristic) {
  return characteristic.format === "bool" ? [true, false] : characteristic.valid_values || null;
}

/** The value part of "when it changes", after the characteristic's kind. */
function renderTriggerValue() {
  const container = $("#new-trigger-value", HTMLElement);
  clear(container);
  const found = findPath(state.byId, choice("new-trigger-characteristic").value);
  if (!found) return;
  const characteristic = found.characteristic;
  const numeric = !["bool", "string", "data", "tlv8"].includes(characteristic.format) && !characteristic.valid_values;
  if (numeric) {
    append(container, [
      h("label", { for: "new-trigger-compare" }, "Fires when it"),
      h("select", { id: "new-trigger-compare", "data-testid": "new-trigger-compare" },
        h("option", { value: "min" }, "rises to at least"),
        h("option", { value: "max" }, "falls to at most"),
        h("option", { value: "any" }, "changes at all")),
      ...valueField("new-trigger-number", characteristic)]);
    return;
  }
  const choices = choicesOf(characteristic);
  const label = h("label", { for: "new-trigger-target" }, "Fires when it becomes");
  const control = choices
    ? h("select", { id: "new-trigger-target", "data-testid": "new-trigger-target" },
      h("option", { value: "" }, "anything else (any change)"),
      choices.map((value) => h("option", { value: JSON.stringify(value) }, formatValue(characteristic, value))))
    : h("input", { id: "new-trigger-target", "data-testid": "new-trigger-target", placeholder: "any change when empty", autocomplete: "off" });
  append(container, [label, control]);
}

/** The value part of "only if an accessory…": a choice for booleans and named values, else a comparison. */
function renderOnlyValue() {
  const container = $("#new-trigger-only-value", HTMLElement);
  clear(container);
  const path = choice("new-trigger-only-characteristic").value;
  const found = path ? findPath(state.byId, path) : null;
  if (!found) return;
  const characteristic = found.characteristic;
  const choices = choicesOf(characteristic);
  if (choices) {
    append(container, [
      h("label", { for: "new-trigger-only-target" }, "is"),
      h("select", { id: "new-trigger-only-target", "data-testid": "new-trigger-only-target" },
        choices.map((value) => h("option", { value: JSON.stringify(value), selected: value === characteristic.value }, formatValue(characteristic, value))))]);
    return;
  }
  if (["string", "data", "tlv8"].includes(characteristic.format)) {
    append(container, [
      h("label", { for: "new-trigger-only-text" }, "is"),
      h("input", { id: "new-trigger-only-text", "data-testid": "new-trigger-only-text", autocomplete: "off" })]);
    return;
  }
  append(container, [
    h("select", { id: "new-trigger-only-op", "data-testid": "new-trigger-only-op", "aria-label": "Comparison" },
      h("option", { value: "<" }, "is below"),
      h("option", { value: ">" }, "is above"),
      h("option", { value: "=" }, "is exactly")),
    ...valueField("new-trigger-only-number", characteristic)]);
}

/** Shows the parts of the form that the choices made so far call for. */
function showWhen() {
  const when = choice("new-trigger-when").value;
  for (const part of $$("#add-trigger-form .when-part[data-when]", HTMLElement)) part.hidden = !(part.dataset.when || "").split(" ").includes(when);
  $("#new-trigger-day-picks", HTMLElement).hidden = choice("new-trigger-days").value !== "custom";
  $("#new-trigger-only-between", HTMLElement).hidden = choice("new-trigger-only-time").value !== "between";
}

/** Fills the form's lists from the home as it is when the form is opened. */
function prepareTriggerForm() {
  const select = choice("new-trigger-characteristic");
  const chosen = select.value;
  clear(select);
  const paths = eventPaths();
  for (const [path, text] of paths) append(select, [h("option", { value: path, selected: path === chosen }, text)]);
  renderTriggerValue();
  const only = choice("new-trigger-only-characteristic");
  const onlyChosen = only.value;
  clear(only);
  append(only, [h("option", { value: "" }, "Whatever the accessories are doing")]);
  for (const [path, text] of paths) append(only, [h("option", { value: path, selected: path === onlyChosen }, text)]);
  renderOnlyValue();
  const scenes = $("#new-trigger-scenes", HTMLElement);
  const ticked = new Set(checkedValues(scenes));
  clear(scenes);
  if (!state.actionSets.length) append(scenes, [h("p", { class: "placeholder" }, "No scenes yet: make one under Scenes first.")]);
  for (const set of state.actionSets) {
    append(scenes, [h("label", { class: "pick" },
      h("input", { type: "checkbox", value: set.id, checked: ticked.has(set.id), "data-testid": `trigger-pick-${set.id}` }),
      h("span", null, set.name))]);
  }
  showWhen();
}

/** The form's fields as they are now; the parts drawn for a characteristic only when it has them. */
function readForm() {
  /** @param {string} id */
  const optional = (id) => {
    const el = document.getElementById(id);
    return el instanceof HTMLInputElement || el instanceof HTMLSelectElement ? el : null;
  };
  const compare = optional("new-trigger-compare");
  const target = optional("new-trigger-target");
  const onlyTarget = optional("new-trigger-only-target");
  const onlyText = optional("new-trigger-only-text");
  const onlyNumber = optional("new-trigger-only-number");
  return {
    name: field("new-trigger-name").value.trim(),
    home: state.homeId,
    actionSets: checkedValues($("#new-trigger-scenes", HTMLElement)),
    when: choice("new-trigger-when").value,
    at: field("new-trigger-at").value,
    days: choice("new-trigger-days").value,
    dayPicks: checkedValues($("#new-trigger-day-picks", HTMLElement)),
    offset: field("new-trigger-offset").value,
    characteristic: choice("new-trigger-characteristic").value,
    range: compare ? { compare: compare.value, number: field("new-trigger-number").value } : null,
    target: target ? { value: target.value, choice: target instanceof HTMLSelectElement } : null,
    forMinutes: field("new-trigger-for").value,
    onlyTime: choice("new-trigger-only-time").value,
    onlyAfter: field("new-trigger-only-after").value,
    onlyBefore: field("new-trigger-only-before").value,
    onlyCharacteristic: choice("new-trigger-only-characteristic").value,
    onlyValue: onlyTarget ? { choice: onlyTarget.value }
      : onlyText ? { text: onlyText.value }
        : onlyNumber ? { op: choice("new-trigger-only-op").value, number: onlyNumber.value } : null,
  };
}

export function wireNewAutomation() {
  const form = $("#add-trigger-form", HTMLFormElement);
  const error = $(".form-error", HTMLElement, form);
  const details = $("#new-trigger", HTMLDetailsElement);
  details.addEventListener("toggle", () => {
    if (details.open) prepareTriggerForm();
  });
  choice("new-trigger-when").addEventListener("change", showWhen);
  choice("new-trigger-characteristic").addEventListener("change", renderTriggerValue);
  choice("new-trigger-days").addEventListener("change", showWhen);
  choice("new-trigger-only-time").addEventListener("change", showWhen);
  choice("new-trigger-only-characteristic").addEventListener("change", renderOnlyValue);
  form.addEventListener("change", () => { error.textContent = ""; });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    try {
      await api("POST", "/api/triggers", triggerBody(readForm()));
      field("new-trigger-name").value = "";
      for (const input of $$(".scene-picks input:checked, .day-picks input:checked", HTMLInputElement, form)) input.checked = false;
      choice("new-trigger-days").value = "daily";
      choice("new-trigger-only-time").value = "";
      choice("new-trigger-only-characteristic").value = "";
      renderOnlyValue();
      showWhen();
      details.open = false;
      await reloadAutomations();
    } catch (e) {
      error.textContent = messageOf(e);
    }
  });
}
