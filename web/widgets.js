// @ts-check
// Small parts the views share: a switch, a confirming button, a fact, a live "5 min ago".

import { h } from "./dom.js";
import { timeText } from "./times.js";

/** @typedef {import("./dom.js").Child} Child */
/** @typedef {import("./dom.js").Leaf} Leaf */

/**
 * @param {boolean} checked
 * @param {string} label
 * @param {string} testid
 */
export function switchButton(checked, label, testid) {
  return h("button", {
    type: "button",
    role: "switch",
    class: "switch",
    "aria-checked": checked ? "true" : "false",
    "aria-label": label,
    "data-testid": testid,
  });
}

/**
 * A button that asks to be pressed again before it acts.
 * @param {string} text
 * @param {string} testid
 * @param {() => void} action
 */
export function confirmButton(text, testid, action) {
  const button = h("button", { type: "button", class: "danger", "data-testid": testid }, text);
  /** @type {ReturnType<typeof setTimeout> | null} */
  let armed = null;
  button.addEventListener("click", () => {
    if (!armed) {
      button.textContent = "Sure? Tap again";
      button.classList.add("armed");
      armed = setTimeout(() => {
        armed = null;
        button.textContent = text;
        button.classList.remove("armed");
      }, 4000);
      return;
    }
    clearTimeout(armed);
    armed = null;
    action();
  });
  return button;
}

/**
 * A term and its description, or nothing when there is no value.
 * @param {string} name
 * @param {Child} value
 */
export function fact(name, value) {
  if (value === undefined || value === null || value === "") return null;
  return [h("dt", null, name), h("dd", null, value)];
}

/**
 * A name that may wrap after its underscores (Zigbee2MQTT friendly names have no spaces).
 * @param {string} name
 * @returns {Leaf[]}
 */
export function breakable(name) {
  const parts = String(name).split(/(?<=[_./-])/);
  return parts.flatMap((part, i) => (i ? [h("wbr", null), part] : [part]));
}

/**
 * A <time> that keeps its "5 min ago" current.
 * @param {string | null | undefined} iso
 * @param {Record<string, string>} [attrs]
 */
export function timeEl(iso, attrs = {}) {
  if (!iso) return h("span", attrs, "never");
  return h("time", { ...attrs, class: `reltime ${attrs.class || ""}`.trim(), datetime: iso, title: new Date(iso).toString() }, timeText(iso));
}

export function refreshTimes() {
  for (const el of document.querySelectorAll("time.reltime")) el.textContent = timeText(el.getAttribute("datetime") || "");
}
