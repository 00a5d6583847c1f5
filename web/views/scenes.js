// @ts-check
// Scenes (action sets): what each writes, a Run button, and what its last run did.

import { api, enc, messageOf, ApiError } from "../api.js";
import { $, append, clear, h } from "../dom.js";
import { reloadAutomations } from "../load.js";
import { describePath, formatPathValue, withHome } from "../paths.js";
import { describeAccessory, state } from "../store.js";
import { confirmButton, timeEl } from "../widgets.js";

/** @typedef {import("../types.js").ActionSet} ActionSet */
/** @typedef {import("../types.js").ActionResult} ActionResult */
/** @typedef {import("../types.js").RunRecord} RunRecord */

export function renderScenes() {
  const container = $("#action-sets", HTMLElement);
  clear(container);
  if (!state.actionSets.length) {
    append(container, [h("p", { class: "placeholder" }, "No scenes in this home yet: make one below from how things are now.")]);
    return;
  }
  for (const set of state.actionSets) append(container, [sceneCard(set)]);
}

/** @param {ActionSet} set */
function sceneCard(set) {
  const result = state.lastResults.get(set.id);
  const run = h("button", { type: "button", class: "primary", "data-testid": `run-${set.id}` }, "Run");
  run.addEventListener("click", async () => {
    run.disabled = true;
    run.textContent = "Running…";
    /** @type {RunRecord} */
    let record;
    try {
      const answer = /** @type {{results?: ActionResult[]}} */ (await api("POST", `/api/action-sets/${enc(set.id)}/execute`, {}));
      record = { time: new Date().toISOString(), source: "api", results: answer.results || [] };
    } catch (error) {
      const results = (error instanceof ApiError && error.data && error.data.results) || [];
      record = { time: new Date().toISOString(), source: "api", results, error: messageOf(error) };
    }
    // The executed event may have come first, with the same results; the answer adds the error line.
    state.lastResults.set(set.id, record);
    if (!record.error || record.results.length) set.last_executed = record.time;
    renderScenes();
  });
  const recall = set.zigbee2mqtt_scene;
  const actions = recall
    ? h("p", { class: "muted-text" }, `Zigbee2MQTT scene ${recall.scene} of ${describeAccessory(recall.accessory)}`)
    : set.actions && set.actions.length
      ? h("ul", { class: "actions" }, set.actions.map((action) => h("li", null,
        h("span", null, describePath(state.byId, action.characteristic)),
        h("span", { class: "arrow" }, "→"),
        h("strong", null, formatPathValue(state.byId, action.characteristic, action.value)))))
      : h("p", { class: "muted-text" }, "No actions yet.");
  // A Zigbee2MQTT scene lives in Zigbee2MQTT: it goes when it is removed there.
  const error = h("p", { class: "form-error", "data-testid": `action-set-error-${set.id}`, role: "alert" });
  const remove = recall ? null : confirmButton("Remove", `remove-${set.id}`, async () => {
    error.textContent = "";
    try {
      await api("DELETE", withHome(`/api/action-sets/${enc(set.id)}`, state.homeId));
      await reloadAutomations();
    } catch (e) {
      error.textContent = messageOf(e);
    }
  });
  return h("article", { class: "card", "data-testid": `action-set-${set.id}` },
    h("header", { class: "card-head" }, h("h3", null, set.name), run),
    actions,
    h("div", { class: "card-foot split" },
      h("span", null, "Last run: ", timeEl(set.last_executed, { "data-testid": `last-executed-${set.id}` })),
      remove),
    error,
    result ? resultView(set, result) : null);
}

/**
 * What a run did, action by action.
 * @param {ActionSet} set
 * @param {RunRecord} result
 */
function resultView(set, result) {
  const failed = result.results.filter((r) => r.status !== "ok").length;
  const by = result.source && result.source.startsWith("trigger:") ? ` by automation ${triggerName(result.source.slice(8))}` : "";
  return h("div", { class: `result${failed || result.error ? " has-error" : ""}`, "data-testid": `result-${set.id}`, role: "status" },
    h("p", { class: "result-head" },
      failed || result.error ? `${failed} of ${result.results.length} failed` : `Done: ${result.results.length} of ${result.results.length} ok`,
      by, " · ", timeEl(result.time)),
    result.error && !failed ? h("p", { class: "error-text" }, result.error) : null,
    h("ul", { class: "results" }, result.results.map((r) => {
      const what = r.zigbee2mqtt_scene
        ? `scene ${r.zigbee2mqtt_scene.scene} of ${describeAccessory(r.zigbee2mqtt_scene.accessory)}`
        : describePath(state.byId, r.characteristic || `${r.accessory}/${r.service}/${r.characteristic}`);
      return h("li", { class: r.status === "ok" ? "ok" : "error" },
        h("span", { class: "mark", "aria-hidden": "true" }, r.status === "ok" ? "✓" : "✗"),
        h("span", null, what),
        r.status === "ok"
          ? (r.value !== undefined ? h("span", { class: "muted-text" }, `→ ${formatPathValue(state.byId, r.characteristic, r.value)}`) : null)
          : h("span", { class: "error-text" }, ` ${r.error || "failed"}`));
    })));
}

/** @param {string} id */
function triggerName(id) {
  const trigger = state.triggers.find((t) => t.id === id);
  return trigger ? trigger.name : id;
}
