// @ts-check
// What the page reads off accessories: category, main service, battery, one-line summary, the
// groups it is listed in, and what a scene can keep of it. Pure: no DOM, no state.

import { categoryName, charName, formatValue } from "./words.js";
import { pathOf } from "./paths.js";

/** @typedef {import("./types.js").Accessory} Accessory */
/** @typedef {import("./types.js").Service} Service */
/** @typedef {import("./types.js").Action} Action */
/** @typedef {import("./types.js").Home} Home */
/** @typedef {import("./types.js").Room} Room */

// Services about the accessory rather than for using it: shown closed and greyed.
const CONFIG_SERVICES = new Set(["accessory_information", "settings", "service_label", "protocol_information"]);

/**
 * The gateway decides it: a mapping file's `category`, else the primary service's kind.
 * @param {Accessory} accessory
 */
export function categoryOf(accessory) {
  return accessory.category || "other";
}

/** @param {Service} service */
export function isConfigService(service) {
  return service.hidden === true || CONFIG_SERVICES.has(service.type);
}

/**
 * @param {Accessory} accessory
 * @returns {Service | undefined}
 */
export function primaryService(accessory) {
  const services = accessory.services || [];
  return services.find((s) => s.primary) || services.find((s) => !isConfigService(s) && s.type !== "battery_service") || services[0];
}

/**
 * Its battery level and whether it is low (15 % or less, or said so); null without a battery.
 * @param {Accessory} accessory
 */
export function batteryOf(accessory) {
  /** @type {number | null} */
  let level = null;
  let low = false;
  for (const service of accessory.services || []) {
    for (const c of service.characteristics) {
      if (c.type === "battery_level" && typeof c.value === "number") level = c.value;
      if (c.type === "status_low_battery" && c.value === 1) low = true;
    }
  }
  if (level === null && !low) return null;
  return { level, low: low || (level !== null && level <= 15) };
}

const SUMMARY_ORDER = [
  "current_temperature", "current_relative_humidity", "current_ambient_light_level", "contact_sensor_state",
  "motion_detected", "occupancy_detected", "smoke_detected", "leak_detected", "current_position",
  "current_door_state", "lock_current_state", "air_pressure", "programmable_switch_event",
];

/**
 * One line about the accessory's main state: "On · 50 %", "21.6 °C", "closed".
 * @param {Accessory} accessory
 */
export function summary(accessory) {
  const service = primaryService(accessory);
  if (!service) return "";
  const chars = service.characteristics;
  /** @param {string} type */
  const get = (type) => chars.find((c) => c.type === type);
  const on = get("on");
  if (on) {
    if (on.value === null || on.value === undefined) return "—";
    const parts = [on.value ? "On" : "Off"];
    const brightness = get("brightness");
    if (on.value && brightness && typeof brightness.value === "number") parts.push(formatValue(brightness, brightness.value));
    const inUse = get("outlet_in_use");
    if (inUse && inUse.value === true) parts.push("in use");
    return parts.join(" · ");
  }
  if (service.type === "thermostat") {
    const current = get("current_temperature");
    const target = get("target_temperature");
    const parts = [];
    if (current && current.value !== null) parts.push(formatValue(current, current.value));
    if (target && target.value !== null) parts.push(`set to ${formatValue(target, target.value)}`);
    return parts.join(" · ");
  }
  if (service.type === "stateless_programmable_switch" && !chars.some((c) => c.type === "programmable_switch_event" && c.value !== null)) {
    return "No press yet";
  }
  for (const type of SUMMARY_ORDER) {
    const c = get(type);
    if (c && c.value !== null && c.value !== undefined) {
      if (type === "motion_detected") return c.value ? "Motion" : "No motion";
      if (type === "programmable_switch_event") return `Last: ${formatValue(c, c.value)}`;
      if (type === "current_position") return `Open ${formatValue(c, c.value)}`;
      return formatValue(c, c.value);
    }
  }
  const any = chars.find((c) => c.permissions.includes("read") && c.value !== null && c.value !== undefined && c.type !== "service_label_index");
  return any ? `${charName(any.type)}: ${formatValue(any, any.value)}` : "—";
}

/**
 * What a scene keeps of an accessory: each characteristic it can be set back to, as it is now.
 * @param {Accessory} accessory
 * @returns {Action[]}
 */
export function sceneActions(accessory) {
  const actions = [];
  for (const service of accessory.services || []) {
    if (isConfigService(service)) continue;
    for (const characteristic of service.characteristics || []) {
      const permissions = characteristic.permissions || [];
      if (!permissions.includes("write") || !permissions.includes("read")) continue;
      if (characteristic.value === undefined || characteristic.value === null) continue;
      actions.push({ characteristic: pathOf(accessory.id, service.id, characteristic.type), value: characteristic.value });
    }
  }
  return actions;
}

/**
 * The paths of characteristics whose changes are events: each accessory's, but not its settings'.
 * @param {Accessory[]} accessories
 */
export function notifyingPaths(accessories) {
  const paths = [];
  for (const accessory of accessories) {
    for (const service of accessory.services || []) {
      if (isConfigService(service)) continue;
      for (const characteristic of service.characteristics || []) {
        if ((characteristic.permissions || []).includes("notify")) paths.push(pathOf(accessory.id, service.id, characteristic.type));
      }
    }
  }
  return paths;
}

/** @typedef {{key: string, name: string, room?: string, category?: string, accessories: Accessory[]}} Group */

/**
 * @param {{name: string}} a
 * @param {{name: string}} b
 */
const byName = (a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: "base", numeric: true });

/**
 * The accessories in groups, sorted by name: by room (the home's room for "the entire home"
 * first, then the rest; empty rooms left out), or by category.
 * @param {Accessory[]} accessories
 * @param {"room" | "category"} groupBy
 * @param {Home | null} home
 * @returns {Group[]}
 */
export function groupsOf(accessories, groupBy, home) {
  if (groupBy === "room") {
    const rooms = home ? home.rooms || [] : [];
    const defaultRoom = rooms.find((room) => room.id === (home && home.default_room));
    const others = rooms.filter((room) => room !== defaultRoom).sort(byName);
    const ordered = defaultRoom ? [defaultRoom, ...others] : others;
    const known = new Set(ordered.map((room) => room.id));
    /** @type {Group[]} */
    const groups = ordered.map((room) => ({
      key: `room-${room.id}`,
      name: room.name,
      room: room.id,
      accessories: accessories.filter((accessory) => accessory.room === room.id).sort(byName),
    }));
    const loose = accessories.filter((accessory) => !known.has(accessory.room ?? "")).sort(byName);
    if (loose.length) groups.push({ key: "room-none", name: "Not in a room", accessories: loose });
    return groups.filter((group) => group.accessories.length > 0);
  }
  /** @type {Map<string, Accessory[]>} */
  const categories = new Map();
  for (const accessory of accessories) {
    const category = categoryOf(accessory);
    const list = categories.get(category) || [];
    list.push(accessory);
    categories.set(category, list);
  }
  return [...categories.entries()]
    .map(([category, list]) => ({ key: `category-${category}`, name: categoryName(category), category, accessories: list.sort(byName) }))
    .sort(byName);
}
