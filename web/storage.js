// @ts-check
// What the page keeps in this browser between visits.

export const TOKEN_KEY = "homegate.token";
export const HOME_KEY = "homegate.home";
export const GROUP_KEY = "homegate.groupBy";

/** @param {string} key */
export function readStorage(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * Stores `value`, or forgets the key for none.
 * @param {string} key
 * @param {string | null | undefined} value
 */
export function writeStorage(key, value) {
  try {
    if (value === null || value === undefined || value === "") localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    /* private mode: kept for this page only */
  }
}
