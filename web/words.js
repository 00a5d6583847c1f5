// @ts-check
// How the page names things and writes values for a person. Pure: no DOM, no state.

/** @typedef {import("./types.js").Characteristic} Characteristic */
/** @typedef {import("./types.js").Service} Service */

/** @type {Record<string, string>} */
const CATEGORY_NAMES = {
  lightbulb: "Lights", outlet: "Outlets", switch: "Switches", sensor: "Sensors", thermostat: "Thermostats",
  door_lock: "Locks", window_covering: "Window coverings", programmable_switch: "Buttons",
  garage_door_opener: "Garage doors", fan: "Fans", security_system: "Security systems", bridge: "Bridges",
  other: "Other",
};

/** @type {Record<string, string>} */
const CHAR_NAMES = {
  on: "Power", current_relative_humidity: "Humidity", current_ambient_light_level: "Light level",
  programmable_switch_event: "Button event", color_temperature: "Colour temperature",
};

/** @type {Record<string, string>} */
const UNITS = { percentage: "%", celsius: "°C", fahrenheit: "°F", arcdegrees: "°", lux: "lx", seconds: "s" };

/**
 * HAP's meaning of enumerated values.
 * @type {Record<string, string[]>}
 */
const ENUMS = {
  current_door_state: ["open", "closed", "opening", "closing", "stopped"],
  target_door_state: ["open", "closed"],
  contact_sensor_state: ["closed", "open"],
  position_state: ["closing", "opening", "stopped"],
  charging_state: ["not charging", "charging", "not chargeable"],
  status_low_battery: ["normal", "low"],
  current_heating_cooling_state: ["off", "heating", "cooling"],
  target_heating_cooling_state: ["off", "heat", "cool", "auto"],
  temperature_display_units: ["celsius", "fahrenheit"],
  programmable_switch_event: ["single press", "double press", "long press"],
  smoke_detected: ["no smoke", "smoke"],
  leak_detected: ["no leak", "leak"],
  carbon_monoxide_detected: ["normal", "abnormal"],
  carbon_dioxide_detected: ["normal", "abnormal"],
  occupancy_detected: ["not occupied", "occupied"],
  status_tampered: ["not tampered", "tampered"],
  status_fault: ["no fault", "fault"],
  service_label_namespace: ["dots", "numerals"],
  lock_current_state: ["unsecured", "secured", "jammed", "unknown"],
  lock_target_state: ["unsecured", "secured"],
  active: ["inactive", "active"],
  in_use: ["not in use", "in use"],
  current_fan_state: ["inactive", "idle", "blowing"],
  target_fan_state: ["manual", "auto"],
  rotation_direction: ["clockwise", "counter-clockwise"],
  swing_mode: ["off", "on"],
  lock_physical_controls: ["unlocked", "locked"],
  air_quality: ["unknown", "excellent", "good", "fair", "inferior", "poor"],
  security_system_current_state: ["stay arm", "away arm", "night arm", "disarmed", "triggered"],
  security_system_target_state: ["stay arm", "away arm", "night arm", "disarm"],
};

/**
 * "current_door_state" → "Current door state".
 * @param {string | undefined} snake
 */
export function humanize(snake) {
  const text = String(snake || "").replace(/_/g, " ").trim();
  return text ? text[0].toUpperCase() + text.slice(1) : "";
}

/** @param {string} type */
export function charName(type) {
  return CHAR_NAMES[type] || humanize(type);
}

/** @param {Service} service */
export function serviceName(service) {
  return service.name || humanize(service.type);
}

/** @param {string} category */
export function categoryName(category) {
  return CATEGORY_NAMES[category] || humanize(category);
}

/**
 * The decimal places a step calls for (0.5 → 1), at most 4.
 * @param {number | undefined} step
 */
export function decimals(step) {
  if (!step || Number.isInteger(step)) return 0;
  const text = String(step);
  const dot = text.indexOf(".");
  return dot < 0 ? 0 : Math.min(4, text.length - dot - 1);
}

/** @param {Characteristic} characteristic */
export function unitText(characteristic) {
  if (!characteristic.unit) return "";
  return UNITS[characteristic.unit] || characteristic.unit;
}

/**
 * @param {string} text
 * @param {Characteristic} characteristic
 */
function withUnit(text, characteristic) {
  const unit = unitText(characteristic);
  if (!unit) return text;
  return unit === "%" || unit === "°" ? `${text}${unit === "%" ? " %" : unit}` : `${text} ${unit}`;
}

/**
 * The value as a person reads it: "50 %", "closed", "On".
 * @param {Characteristic} characteristic
 * @param {unknown} value
 */
export function formatValue(characteristic, value) {
  if (value === null || value === undefined) return "—";
  if (characteristic.format === "bool" || typeof value === "boolean") {
    if (characteristic.type === "on") return value ? "On" : "Off";
    return value ? "Yes" : "No";
  }
  const names = ENUMS[characteristic.type];
  if (typeof value === "number" && characteristic.valid_values && names && names[value] !== undefined) return names[value];
  if (typeof value === "number") {
    const places = decimals(characteristic.step);
    const text = places ? value.toFixed(places) : String(Math.round(value * 10000) / 10000);
    return withUnit(text, characteristic);
  }
  if (typeof value === "string") return value === "" ? "(empty)" : value;
  return JSON.stringify(value);
}

/**
 * A choice in a select: the value's meaning and the value itself.
 * @param {Characteristic} characteristic
 * @param {unknown} value
 */
export function optionLabel(characteristic, value) {
  const names = ENUMS[characteristic.type];
  if (typeof value === "number" && names && names[value] !== undefined) return `${names[value]} (${value})`;
  if (value === "") return "(empty)";
  return String(value);
}

/** @param {string[] | undefined} permissions */
export function permissionsText(permissions) {
  return (permissions || []).join(" ");
}

/**
 * "0–100 · step 1 · values 0, 1".
 * @param {Characteristic} characteristic
 */
export function rangeText(characteristic) {
  const parts = [];
  if (characteristic.min !== undefined || characteristic.max !== undefined) {
    parts.push(`${characteristic.min ?? "…"}–${characteristic.max ?? "…"}`);
  }
  if (characteristic.step !== undefined) parts.push(`step ${characteristic.step}`);
  if (characteristic.valid_values) {
    parts.push(`values ${characteristic.valid_values.map((v) => (v === "" ? '""' : v)).join(", ")}`);
  }
  return parts.join(" · ");
}

/**
 * "3 accessories, 1 unreachable".
 * @param {{reachable: boolean}[]} accessories
 */
export function countText(accessories) {
  const unreachable = accessories.filter((a) => !a.reachable).length;
  return `${accessories.length} accessories${unreachable ? `, ${unreachable} unreachable` : ""}`;
}
