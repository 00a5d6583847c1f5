// @ts-check
// Reading the home from the gateway: everything at once, or just scenes and automations.

import { api, askForToken, isUnauthorized, messageOf } from "./api.js";
import { withHome } from "./paths.js";
import { changed, state } from "./store.js";
import { showBanner } from "./views/banner.js";

/** @typedef {import("./types.js").Accessory} Accessory */
/** @typedef {{primary: string, homes: import("./types.js").Home[]}} HomeList */
/** @typedef {{accessories: Accessory[]}} AccessoryList */
/** @typedef {{action_sets: import("./types.js").ActionSet[]}} ActionSetList */
/** @typedef {{triggers: import("./types.js").Trigger[]}} TriggerList */

/** @type {Promise<boolean> | null} */
let reloading = null;
let reloadAgain = false;

/** Reads everything; a call during a read makes one more read after it. Resolves to whether it worked. */
export async function reloadAll() {
  if (reloading) {
    reloadAgain = true;
    return reloading;
  }
  reloading = (async () => {
    let ok = false;
    try {
      do {
        reloadAgain = false;
        ok = await loadOnce();
      } while (reloadAgain);
    } finally {
      reloading = null;
    }
    return ok;
  })();
  return reloading;
}

async function loadOnce() {
  try {
    const [homes, tree] = /** @type {[HomeList, AccessoryList]} */ (await Promise.all([api("GET", "/api/homes"), api("GET", "/api/accessories")]));
    state.homes = homes.homes || [];
    state.primary = homes.primary;
    if (!state.homes.some((home) => home.id === state.homeId)) state.homeId = state.primary || (state.homes[0] && state.homes[0].id) || null;
    setAccessories(tree.accessories || []);
    const [sets, triggers] = /** @type {[ActionSetList, TriggerList]} */ (await Promise.all([
      api("GET", withHome("/api/action-sets", state.homeId)),
      api("GET", withHome("/api/triggers", state.homeId)),
    ]));
    state.actionSets = sets.action_sets || [];
    state.triggers = triggers.triggers || [];
    state.loaded = true;
    state.needToken = false;
    showBanner(null);
    changed("home");
    return true;
  } catch (error) {
    if (isUnauthorized(error)) {
      showBanner("This gateway needs a token.", "Enter token", () => askForToken(messageOf(error)));
    } else {
      showBanner(`Could not load the home: ${messageOf(error)}`, "Try again", () => reloadAll());
    }
    return false;
  }
}

/** @param {Accessory[]} list */
function setAccessories(list) {
  state.accessories = list;
  state.byId = new Map(list.map((accessory) => [accessory.id, accessory]));
  for (const accessory of list) {
    const known = state.lastSeen.get(accessory.id);
    if (accessory.last_seen && (!known || Date.parse(known) < Date.parse(accessory.last_seen))) state.lastSeen.set(accessory.id, accessory.last_seen);
  }
  changed("accessories");
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let reloadTimer;

/** Reads everything soon: coalesces the rereads a burst of structural events asks for. */
export function scheduleReload(delay = 150) {
  clearTimeout(reloadTimer);
  reloadTimer = setTimeout(() => reloadAll(), delay);
}

export async function reloadAutomations() {
  try {
    const [sets, triggers] = /** @type {[ActionSetList, TriggerList]} */ (await Promise.all([
      api("GET", withHome("/api/action-sets", state.homeId)),
      api("GET", withHome("/api/triggers", state.homeId)),
    ]));
    state.actionSets = sets.action_sets || [];
    state.triggers = triggers.triggers || [];
    changed("automations");
  } catch (error) {
    if (!isUnauthorized(error)) showBanner(`Could not load scenes and automations: ${messageOf(error)}`);
  }
}
