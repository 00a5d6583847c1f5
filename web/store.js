// @ts-check
// The page's state: the home as the gateway last said, what the person chose, and who is told
// when something changed (app.js wires the views to it, so loading need not know the views).

import { GROUP_KEY, HOME_KEY, readStorage, writeStorage } from "./storage.js";

/** @typedef {import("./types.js").Accessory} Accessory */
/** @typedef {import("./types.js").Home} Home */

export const VIEWS = ["accessories", "scenes", "automations", "rooms", "homekit"];

/** The section in the address (#scenes), so that a reload or a bookmark keeps it. */
export function viewFromHash() {
  return VIEWS.includes(location.hash.slice(1)) ? location.hash.slice(1) : "accessories";
}

export const state = {
  /** @type {Home[]} */
  homes: [],
  /** @type {string | null} */
  primary: null,
  /** @type {string | null} */
  homeId: readStorage(HOME_KEY) || null,
  /** @type {Accessory[]} */
  accessories: [],
  /** @type {Map<string, Accessory>} */
  byId: new Map(),
  /** @type {import("./types.js").ActionSet[]} */
  actionSets: [],
  /** @type {import("./types.js").Trigger[]} */
  triggers: [],
  /** @type {"room" | "category"} */
  groupBy: readStorage(GROUP_KEY) === "category" ? "category" : "room",
  view: viewFromHash(),
  /** @type {string | null} the accessory whose detail is open */
  selected: null,
  /** @type {Set<string>} "accessory/service" of services opened against the default (closed) */
  openServices: new Set(),
  /** @type {Set<string>} "accessory/service" of services closed against the default (open) */
  closedServices: new Set(),
  /** @type {Map<string, import("./types.js").RunRecord>} action set id → its last run */
  lastResults: new Map(),
  /** @type {Map<string, import("./types.js").TriggerChange>} trigger id → the last `fired` event seen */
  lastFires: new Map(),
  /** @type {Map<string, string>} accessory id → when its device last reported (last_seen, or a later value change) */
  lastSeen: new Map(),
  /** @type {Map<string, number>} characteristic path → how many value events the page has seen */
  eventCount: new Map(),
  loaded: false,
  needToken: false,
};

// MARK: the home shown

export function currentHome() {
  return state.homes.find((home) => home.id === state.homeId) || null;
}

/** The accessories of the home shown: those placed in it, and the unplaced ones in the primary home. */
export function accessoriesOfHome() {
  const home = currentHome();
  return state.accessories.filter((accessory) => (accessory.home ? accessory.home === state.homeId : home && home.primary));
}

/** @param {string | null | undefined} id */
export function roomName(id) {
  for (const home of state.homes) {
    const room = (home.rooms || []).find((r) => r.id === id);
    if (room) return room.name;
  }
  return id || "No room";
}

/** @param {string} id */
export function describeAccessory(id) {
  const accessory = state.byId.get(id);
  return accessory ? accessory.name : id;
}

/**
 * The home the page shows from now on (kept for the next visit).
 * @param {string} id
 */
export function chooseHome(id) {
  state.homeId = id;
  writeStorage(HOME_KEY, id);
  state.selected = null;
  state.lastResults.clear();
}

/** @param {"room" | "category"} groupBy */
export function chooseGrouping(groupBy) {
  state.groupBy = groupBy;
  writeStorage(GROUP_KEY, groupBy);
}

// MARK: changes

/**
 * - `home`: the whole home was read again
 * - `automations`: scenes and automations were read again
 * - `accessories`: the accessory list was replaced (the open one may be gone)
 * - `accessory`: an accessory was renamed or moved from this page
 * - `view`: another section is shown
 * @typedef {"home" | "automations" | "accessories" | "accessory" | "view"} Change
 */

/** @type {Map<Change, (() => void)[]>} */
const listeners = new Map();

/**
 * @param {Change} change
 * @param {() => void} listener
 */
export function onChange(change, listener) {
  listeners.set(change, [...(listeners.get(change) || []), listener]);
}

/** @param {Change} change */
export function changed(change) {
  for (const listener of listeners.get(change) || []) listener();
}
