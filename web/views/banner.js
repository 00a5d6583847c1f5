// @ts-check
// The banner under the top bar: why the home could not be read, and what to do.

import { $, append, clear, h } from "../dom.js";

/**
 * Shows `message` (none hides it), with a button for `action`.
 * @param {string | null} message
 * @param {string} [actionText]
 * @param {() => void} [action]
 */
export function showBanner(message, actionText, action) {
  const banner = $("#banner", HTMLElement);
  clear(banner);
  if (!message) {
    banner.hidden = true;
    return;
  }
  banner.hidden = false;
  append(banner, [h("span", null, message)]);
  if (actionText) append(banner, [h("button", { type: "button", onclick: action, "data-testid": "banner-action" }, actionText)]);
}
