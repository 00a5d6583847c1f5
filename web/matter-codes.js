// @ts-check
// How the Matter view writes codes, times and ecosystems: pure, so that node --test checks them.

/** @typedef {import("./types.js").MatterFabric} MatterFabric */

/**
 * "3497-011-2332": the manual code in the groups ecosystems print it in.
 * @param {string} code
 */
export function groupedCode(code) {
  return code.length === 11 ? `${code.slice(0, 4)}-${code.slice(4, 7)}-${code.slice(7)}` : code;
}

/**
 * "14:05": minutes and seconds.
 * @param {number} seconds
 */
export function minutesAndSeconds(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/**
 * "Google Home", or "vendor 0x1234" for an ecosystem homegate does not know.
 * @param {MatterFabric} fabric
 */
export function ecosystemName(fabric) {
  return fabric.vendor_name || `vendor 0x${fabric.vendor_id.toString(16).toUpperCase()}`;
}
