// @ts-check
// A characteristic's control in the detail pane (switch, slider, select, input, or the value),
// the writes it makes, and the live values it shows: a write waits for the device to confirm.

import { api, enc, messageOf } from "../api.js";
import { $$, h } from "../dom.js";
import { findPath, pathOf } from "../paths.js";
import { state } from "../store.js";
import { switchButton } from "../widgets.js";
import { charName, decimals, formatValue, optionLabel } from "../words.js";

/** @typedef {import("../types.js").Accessory} Accessory */
/** @typedef {import("../types.js").Service} Service */
/** @typedef {import("../types.js").Characteristic} Characteristic */
/** @typedef {import("../types.js").Value} Value */

/** @type {Map<string, Set<(value: Value | undefined) => void>>} path → how each control showing it takes a new value */
const bindings = new Map();
/** @type {Map<string, ReturnType<typeof setTimeout>>} path → the end of its wait for a confirmation */
const pending = new Map();

/**
 * @param {string} key
 * @param {(value: Value | undefined) => void} update
 */
function bind(key, update) {
  const set = bindings.get(key) || new Set();
  set.add(update);
  bindings.set(key, set);
}

/**
 * Shows `value` in every control of `key`.
 * @param {string} key
 * @param {Value | undefined} value
 */
export function updateBindings(key, value) {
  for (const update of bindings.get(key) || []) update(value);
}

/** The detail is drawn anew: its old controls are gone. */
export function clearBindings() {
  bindings.clear();
}

/** @param {string} key */
export function isPending(key) {
  return pending.has(key);
}

/** @param {string} key */
function setPending(key) {
  clearPending(key);
  // A device confirms a write within 10 s (the gateway's window); without that, show what it has.
  const timer = setTimeout(() => {
    pending.delete(key);
    const found = findPath(state.byId, key);
    if (found) updateBindings(key, found.characteristic.value);
    markPending(key, false);
  }, 10000);
  pending.set(key, timer);
  markPending(key, true);
}

/**
 * The device confirmed, or the write failed.
 * @param {string} key
 */
export function clearPending(key) {
  clearTimeout(pending.get(key));
  pending.delete(key);
  markPending(key, false);
}

/**
 * @param {string} key
 * @param {boolean} on
 */
function markPending(key, on) {
  for (const row of $$(".char[data-key]", HTMLElement)) {
    if (row.dataset.key === key) row.classList.toggle("pending", on);
  }
}

/**
 * @param {string} key
 * @param {string} message
 */
function setCharError(key, message) {
  for (const el of $$(".char-error[data-key]", HTMLElement)) {
    if (el.dataset.key !== key) continue;
    el.textContent = message;
    el.hidden = !message;
  }
}

/**
 * Writes a value; true when the gateway took it. On a refusal the controls show the device's value again.
 * @param {Accessory} accessory @param {Service} service @param {Characteristic} characteristic @param {Value} value
 */
async function writeCharacteristic(accessory, service, characteristic, value) {
  const key = pathOf(accessory.id, service.id, characteristic.type);
  setCharError(key, "");
  const seen = state.eventCount.get(key) || 0;
  try {
    await api("PUT", `/api/accessories/${enc(accessory.id)}/${enc(service.id)}/${enc(characteristic.type)}`, { value });
    // Waits for the device to confirm, unless it already has (its event can beat the answer).
    const confirmed = (state.eventCount.get(key) || 0) !== seen || characteristic.value === value;
    if (characteristic.permissions.includes("read") && !confirmed) setPending(key);
    return true;
  } catch (error) {
    clearPending(key);
    setCharError(key, messageOf(error));
    updateBindings(key, characteristic.value); // back to what the device has
    return false;
  }
}

/**
 * The control the metadata calls for: a switch, a slider, a select, an input, or the value.
 * @param {Accessory} accessory @param {Service} service @param {Characteristic} characteristic
 * @param {string} tid the row's test id part @param {string} key the characteristic's path
 */
export function control(accessory, service, characteristic, tid, key) {
  const c = characteristic;
  const writable = c.permissions.includes("write");
  const readable = c.permissions.includes("read");
  const label = `${accessory.name}: ${charName(c.type)}`;
  const numeric = ["uint8", "uint16", "uint32", "uint64", "int", "float"].includes(c.format);
  /** @param {Value} value */
  const write = (value) => writeCharacteristic(accessory, service, c, value);

  if (!writable) {
    const el = h("output", { class: "value", "data-testid": `char-${tid}`, "aria-labelledby": `label-${tid}` }, formatValue(c, c.value));
    bind(key, (value) => { el.textContent = formatValue(c, value); });
    return el;
  }

  if (c.format === "bool" && readable) {
    const button = switchButton(c.value === true, label, `char-${tid}`);
    const text = h("span", { class: "switch-text", "data-testid": `value-${tid}` }, formatValue(c, c.value));
    /** @param {Value | undefined} value */
    const show = (value) => {
      button.setAttribute("aria-checked", value === true ? "true" : "false");
      text.textContent = formatValue(c, value);
    };
    button.addEventListener("click", () => {
      const next = button.getAttribute("aria-checked") !== "true";
      show(next);
      write(next);
    });
    bind(key, show);
    return h("span", { class: "control" }, text, button);
  }

  if (c.format === "bool") {
    // Write-only: an action (hold_position), sent as true.
    const button = h("button", { type: "button", "data-testid": `char-${tid}` }, charName(c.type));
    button.addEventListener("click", () => write(true));
    return button;
  }

  const choices = c.valid_values;
  if (Array.isArray(choices)) {
    const select = h("select", { "data-testid": `char-${tid}`, "aria-label": label },
      readable && c.value !== null && c.value !== undefined ? null : h("option", { value: "", selected: true, disabled: readable }, readable ? "—" : "Choose…"),
      choices.map((v, i) => h("option", { value: String(i), selected: c.value === v }, optionLabel(c, v))));
    /** @param {Value | undefined} value */
    const show = (value) => {
      const index = choices.findIndex((v) => v === value);
      if (index >= 0) select.value = String(index);
      else if (select.querySelector("option[value='']")) select.value = "";
    };
    select.addEventListener("change", async () => {
      if (select.value === "") return;
      const value = choices[Number(select.value)];
      const ok = await write(value);
      if (ok && !readable) select.value = ""; // a write-only setting shows no value
    });
    if (readable) bind(key, show);
    else bind(key, () => { select.value = ""; });
    return select;
  }

  if (numeric && typeof c.min === "number" && typeof c.max === "number" && (c.max - c.min) / (c.step || 1) <= 1000) {
    const step = c.step || (c.format === "float" ? "any" : 1);
    const places = decimals(c.step);
    const initial = typeof c.value === "number" ? c.value : c.min;
    const slider = h("input", {
      type: "range", min: c.min, max: c.max, step, value: initial,
      "data-testid": `char-${tid}`, "aria-label": label,
    });
    const output = h("output", { class: "value", "data-testid": `value-${tid}` }, formatValue(c, c.value));
    let dragging = false;
    /** @param {Value | undefined} value */
    const show = (value) => {
      output.textContent = formatValue(c, value);
      if (!dragging && typeof value === "number") slider.value = String(value);
    };
    slider.addEventListener("input", () => {
      dragging = true;
      output.textContent = formatValue(c, Number(slider.value));
    });
    slider.addEventListener("change", () => {
      dragging = false;
      let value = Number(slider.value);
      if (places) value = Number(value.toFixed(places));
      write(value);
    });
    bind(key, show);
    return h("span", { class: "control slider" }, slider, output);
  }

  // A number without a usable range, or a string: an input and a Set button.
  const input = h("input", {
    type: numeric ? "number" : "text",
    value: c.value ?? "",
    step: numeric ? c.step || (c.format === "float" ? "any" : 1) : undefined,
    min: numeric ? c.min : undefined,
    max: numeric ? c.max : undefined,
    "data-testid": `char-${tid}`,
    "aria-label": label,
  });
  const form = h("form", { class: "inline-form" }, input, h("button", { type: "submit", "data-testid": `set-${tid}` }, "Set"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = numeric ? Number(input.value) : input.value;
    write(value);
  });
  bind(key, (value) => {
    if (document.activeElement !== input) input.value = String(value ?? "");
  });
  return form;
}
