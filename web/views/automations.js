// @ts-check
// Automations (triggers): when each fires, what it runs, an on/off switch, and its last firing.

import { api, enc, messageOf } from "../api.js";
import { conditionText, fireSummary, whenText } from "../automation.js";
import { $, append, clear, h } from "../dom.js";
import { reloadAutomations } from "../load.js";
import { withHome } from "../paths.js";
import { state } from "../store.js";
import { confirmButton, fact, switchButton, timeEl } from "../widgets.js";

/** @typedef {import("../types.js").Trigger} Trigger */

export function renderTriggers() {
  const container = $("#triggers", HTMLElement);
  clear(container);
  if (!state.triggers.length) {
    append(container, [h("p", { class: "placeholder" }, "No automations in this home yet: make one below.")]);
    return;
  }
  for (const trigger of state.triggers) append(container, [triggerCard(trigger)]);
}

/** @param {Trigger} trigger */
function triggerCard(trigger) {
  const toggle = switchButton(trigger.enabled, `${trigger.name}: enabled`, `trigger-enabled-${trigger.id}`);
  const error = h("p", { class: "form-error", "data-testid": `trigger-error-${trigger.id}`, role: "alert" });
  toggle.addEventListener("click", async () => {
    const next = toggle.getAttribute("aria-checked") !== "true";
    toggle.setAttribute("aria-checked", next ? "true" : "false");
    toggle.disabled = true;
    error.textContent = "";
    try {
      const updated = /** @type {Trigger} */ (await api("PUT", `/api/triggers/${enc(trigger.id)}/enabled`, { enabled: next }));
      Object.assign(trigger, updated);
      const index = state.triggers.findIndex((t) => t.id === trigger.id);
      if (index >= 0) state.triggers[index] = updated;
      renderTriggers();
    } catch (e) {
      toggle.setAttribute("aria-checked", trigger.enabled ? "true" : "false");
      toggle.disabled = false;
      error.textContent = messageOf(e);
    }
  });
  const fire = state.lastFires.get(trigger.id);
  const fired = fire && fireSummary(fire);
  return h("article", { class: `card${trigger.enabled ? "" : " disabled"}`, "data-testid": `trigger-${trigger.id}` },
    h("header", { class: "card-head" },
      h("h3", null, trigger.name),
      h("span", { class: "control" }, h("span", { class: "switch-text" }, trigger.enabled ? "On" : "Off"), toggle)),
    h("dl", { class: "facts" },
      fact("When", whenText(trigger, state.byId)),
      trigger.conditions ? fact("Only if", conditionText(trigger.conditions, state.byId)) : null,
      fact("Runs", trigger.action_sets && trigger.action_sets.length ? trigger.action_sets.map(actionSetName).join(", ") : "no scene"),
      trigger.execute_once ? fact("Once", "turns itself off when it fires") : null,
      fact("Next", trigger.next_fire ? timeEl(trigger.next_fire, { "data-testid": `next-fire-${trigger.id}` }) : h("span", { "data-testid": `next-fire-${trigger.id}` }, trigger.enabled ? "nothing scheduled" : "off")),
      fact("Last fired", timeEl(trigger.last_fired, { "data-testid": `last-fired-${trigger.id}` })),
      trigger.pending && trigger.pending.length ? fact("Waiting", trigger.pending.map((p) => h("span", null, "until ", timeEl(p.deadline)))) : null,
      fire && fired ? fact("Last result", h("span", { class: fired.failed ? "error-text" : "" }, `${fired.text} · `, timeEl(fire.time))) : null),
    h("div", { class: "card-foot split" },
      h("span", null),
      confirmButton("Remove", `trigger-remove-${trigger.id}`, async () => {
        error.textContent = "";
        try {
          await api("DELETE", withHome(`/api/triggers/${enc(trigger.id)}`, state.homeId));
          await reloadAutomations();
        } catch (e) {
          error.textContent = messageOf(e);
        }
      })),
    error);
}

/** @param {string} id */
function actionSetName(id) {
  const set = state.actionSets.find((s) => s.id === id);
  return set ? set.name : id;
}
