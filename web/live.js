// @ts-check
// What each live event changes on the page: a value in place, an accessory's tile, or a reread.

import { findCharacteristic, pathOf } from "./paths.js";
import { reloadAutomations, scheduleReload } from "./load.js";
import { state } from "./store.js";
import { connectStream } from "./stream.js";
import { refreshTile, renderGroups } from "./views/accessories.js";
import { clearPending, updateBindings } from "./views/controls.js";
import { renderDetail, updateLastSeen } from "./views/detail.js";
import { renderScenes } from "./views/scenes.js";

/** Opens the stream with this page's handlers. */
export function connectLive() {
  connectStream({
    characteristic: onCharacteristic,
    accessory: onAccessory,
    structure: () => scheduleReload(),
    actionSet: onActionSet,
    trigger: onTrigger,
  });
}

/** @param {import("./types.js").CharacteristicChange} event */
function onCharacteristic(event) {
  const found = findCharacteristic(state.byId, event.accessory, event.service, event.characteristic);
  if (!found) {
    scheduleReload();
    return;
  }
  found.characteristic.value = event.value;
  state.lastSeen.set(event.accessory, event.time);
  const key = pathOf(event.accessory, event.service, event.characteristic);
  state.eventCount.set(key, (state.eventCount.get(key) || 0) + 1);
  clearPending(key);
  updateBindings(key, event.value);
  refreshTile(event.accessory);
  if (state.selected === event.accessory) updateLastSeen();
}

/** @param {import("./types.js").AccessoryChange} event */
function onAccessory(event) {
  const accessory = state.byId.get(event.id);
  if (!accessory || event.change === "added" || event.change === "removed") {
    scheduleReload();
    return;
  }
  if (event.reachable !== undefined) {
    accessory.reachable = event.reachable;
    accessory.unreachable_reason = event.unreachable_reason;
  }
  if (event.name !== undefined) accessory.name = event.name;
  if (event.room !== undefined) accessory.room = event.room;
  if (event.home !== undefined) accessory.home = event.home;
  if (event.change === "reachability") {
    refreshTile(accessory.id);
    if (state.selected === accessory.id) renderDetail();
  } else {
    renderGroups();
    if (state.selected === accessory.id) renderDetail();
    scheduleReload(); // room lists and counts
  }
}

/** @param {import("./types.js").ActionSetChange} event */
function onActionSet(event) {
  if (event.change === "executed") {
    state.lastResults.set(event.id, { time: event.time, source: event.source, results: event.results || [] });
    const set = state.actionSets.find((s) => s.id === event.id);
    if (set) {
      set.last_executed = event.time;
      renderScenes();
    } else {
      reloadAutomations();
    }
  } else {
    reloadAutomations();
  }
}

/** @param {import("./types.js").TriggerChange} event */
function onTrigger(event) {
  if (event.change === "fired") state.lastFires.set(event.id, event);
  reloadAutomations();
}
