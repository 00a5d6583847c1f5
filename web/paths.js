// @ts-check
// Characteristic paths ("bulb/lightbulb/brightness"), as action sets, triggers and the page's
// keys name a characteristic, and the API paths the page asks. Pure: the accessories are passed in.

import { charName, formatValue, serviceName } from "./words.js";

/** @typedef {import("./types.js").Accessory} Accessory */
/** @typedef {import("./types.js").Service} Service */
/** @typedef {import("./types.js").Characteristic} Characteristic */
/** @typedef {{accessory: Accessory, service: Service, characteristic: Characteristic}} Found */

/**
 * @param {string} accessory
 * @param {string} service
 * @param {string} type
 */
export function pathOf(accessory, service, type) {
  return `${accessory}/${service}/${type}`;
}

/**
 * @param {Map<string, Accessory>} byId
 * @param {string | undefined} accessoryId
 * @param {string | undefined} serviceId
 * @param {string | undefined} type
 * @returns {Found | null}
 */
export function findCharacteristic(byId, accessoryId, serviceId, type) {
  const accessory = accessoryId === undefined ? undefined : byId.get(accessoryId);
  const service = accessory && accessory.services.find((s) => s.id === serviceId);
  const characteristic = service && service.characteristics.find((c) => c.type === type);
  return accessory && service && characteristic ? { accessory, service, characteristic } : null;
}

/**
 * @param {Map<string, Accessory>} byId
 * @param {string | undefined} path
 */
export function findPath(byId, path) {
  const [a, s, c] = String(path || "").split("/");
  return findCharacteristic(byId, a, s, c);
}

/**
 * "Desk lamp · Brightness", or the path itself when nothing has it.
 * @param {Map<string, Accessory>} byId
 * @param {string} path
 */
export function describePath(byId, path) {
  const found = findPath(byId, path);
  if (!found) return path;
  const type = found.characteristic.type;
  // The service is named only where the accessory has the characteristic in more than one.
  const twins = found.accessory.services.filter((x) => x.characteristics.some((y) => y.type === type));
  const service = twins.length > 1 ? ` · ${serviceName(found.service)}` : "";
  return `${found.accessory.name}${service} · ${charName(type)}`;
}

/**
 * A value as the characteristic at `path` shows it, or as JSON.
 * @param {Map<string, Accessory>} byId
 * @param {string | undefined} path
 * @param {unknown} value
 */
export function formatPathValue(byId, path, value) {
  const found = findPath(byId, path);
  return found ? formatValue(found.characteristic, value) : JSON.stringify(value);
}

/**
 * The path of a trigger's event or condition, given as a path or in three parts.
 * @param {{characteristic?: string, accessory?: string, service?: string}} event
 */
export function eventPath(event) {
  return event.characteristic && event.characteristic.includes("/") ? event.characteristic : `${event.accessory}/${event.service}/${event.characteristic}`;
}

/**
 * `path` for one home: `?home=` (or `&home=`) added when a home is chosen.
 * @param {string} path
 * @param {string | null} home
 */
export function withHome(path, home) {
  return home ? `${path}${path.includes("?") ? "&" : "?"}home=${encodeURIComponent(home)}` : path;
}
