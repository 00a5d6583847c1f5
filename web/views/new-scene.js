// @ts-check
// "New scene from how things are now": pick accessories; the scene keeps their settings as they are.

import { api, messageOf } from "../api.js";
import { sceneActions } from "../accessory.js";
import { $, $$, append, checkedValues, clear, h } from "../dom.js";
import { reloadAutomations } from "../load.js";
import { accessoriesOfHome, roomName, state } from "../store.js";

/** @typedef {import("../types.js").Accessory} Accessory */

/** @type {string | null} */
let picksShape = null;

/** The accessories a new scene can keep, by room; what is ticked survives a redraw. */
export function renderScenePicks() {
  const container = $("#new-scene-accessories", HTMLElement);
  const candidates = accessoriesOfHome().filter((accessory) => sceneActions(accessory).length);
  const shape = JSON.stringify(candidates.map((a) => [a.id, a.name, a.room]));
  if (shape === picksShape) return;
  picksShape = shape;
  const ticked = new Set(checkedValues(container));
  clear(container);
  if (!candidates.length) {
    append(container, [h("p", { class: "placeholder" }, "No accessory here can be set.")]);
    return;
  }
  const sorted = [...candidates].sort((a, b) =>
    roomName(a.room).localeCompare(roomName(b.room), undefined, { sensitivity: "base" }) ||
    a.name.localeCompare(b.name, undefined, { sensitivity: "base" }));
  for (const accessory of sorted) {
    append(container, [h("label", { class: "pick" },
      h("input", { type: "checkbox", value: accessory.id, checked: ticked.has(accessory.id), "data-testid": `pick-${accessory.id}` }),
      h("span", null, accessory.name),
      h("span", { class: "muted-text" }, roomName(accessory.room)))]);
  }
}

export function wireNewScene() {
  const form = $("#add-scene-form", HTMLFormElement);
  const name = $("#new-scene-name", HTMLInputElement);
  const picks = $("#new-scene-accessories", HTMLElement);
  const error = $(".form-error", HTMLElement, form);
  form.addEventListener("change", () => { error.textContent = ""; });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    /** @type {Accessory[]} */
    const picked = [];
    for (const id of checkedValues(picks)) {
      const accessory = state.byId.get(id);
      if (accessory) picked.push(accessory);
    }
    // The values at the moment of saving, not of ticking.
    const actions = picked.flatMap(sceneActions);
    if (!actions.length) {
      error.textContent = "Pick at least one accessory: the scene keeps how the ones you pick are now.";
      return;
    }
    try {
      await api("POST", "/api/action-sets", { name: name.value.trim(), home: state.homeId || undefined, actions });
      name.value = "";
      for (const input of $$("input:checked", HTMLInputElement, picks)) input.checked = false;
      $("#new-scene", HTMLDetailsElement).open = false;
      await reloadAutomations();
    } catch (e) {
      error.textContent = messageOf(e);
    }
  });
}
