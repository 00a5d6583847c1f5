// @ts-check
// The accessories as tiles, grouped by room or by category, with a power switch where one fits.

import { api, enc, messageOf } from "../api.js";
import { batteryOf, categoryOf, groupsOf, primaryService, summary } from "../accessory.js";
import { $, append, clear, h } from "../dom.js";
import { icon } from "../icons.js";
import { accessoriesOfHome, currentHome, roomName, state } from "../store.js";
import { breakable, switchButton } from "../widgets.js";
import { categoryName, countText } from "../words.js";
import { openDetail } from "./detail.js";

/** @typedef {import("../types.js").Accessory} Accessory */

export function renderGroups() {
  const container = $("#groups", HTMLElement);
  container.dataset.grouping = state.groupBy;
  $("#group-by-room", HTMLElement).setAttribute("aria-pressed", state.groupBy === "room" ? "true" : "false");
  $("#group-by-category", HTMLElement).setAttribute("aria-pressed", state.groupBy === "category" ? "true" : "false");
  if (!state.loaded) return;
  const accessories = accessoriesOfHome();
  $("#accessory-count", HTMLElement).textContent = countText(accessories);
  clear(container);
  const groups = groupsOf(accessories, state.groupBy, currentHome());
  if (!groups.length) {
    append(container, [h("p", { class: "placeholder" }, "No accessories in this home yet. Devices appear here when their bridge reports them.")]);
    return;
  }
  for (const group of groups) {
    append(container, [
      h("section", { class: "group", "data-testid": `group-${group.key}`, "aria-label": group.name },
        h("h3", { class: "group-title" }, group.name, h("span", { class: "group-count" }, String(group.accessories.length))),
        h("div", { class: "tiles" }, group.accessories.map((accessory) => tile(accessory)))),
    ]);
  }
}

/**
 * Draws one accessory's tiles again (a value or its reachability changed).
 * @param {string} id
 */
export function refreshTile(id) {
  const accessory = state.byId.get(id);
  if (!accessory) return;
  for (const old of document.querySelectorAll(`.tile[data-accessory="${CSS.escape(id)}"]`)) {
    old.replaceWith(tile(accessory));
  }
  $("#accessory-count", HTMLElement).textContent = countText(accessoriesOfHome());
}

/** @param {Accessory} accessory */
function tile(accessory) {
  const battery = batteryOf(accessory);
  const category = categoryOf(accessory);
  const subtitle = state.groupBy === "room" ? categoryName(category).replace(/s$/, "") : roomName(accessory.room);
  const selected = state.selected === accessory.id;
  return h("article", {
    class: `tile${accessory.reachable ? "" : " unreachable"}${selected ? " selected" : ""}`,
    "data-accessory": accessory.id,
  },
  h("button", {
    type: "button",
    class: "tile-open",
    "data-testid": `accessory-${accessory.id}`,
    "aria-expanded": selected ? "true" : "false",
    "aria-controls": "detail",
    onclick: () => openDetail(accessory.id),
  },
  icon(category),
  h("span", { class: "tile-text" },
    h("span", { class: "tile-name" }, breakable(accessory.name)),
    h("span", { class: "tile-sub" }, subtitle),
    h("span", { class: "tile-state", "data-testid": `summary-${accessory.id}` }, summary(accessory)),
    h("span", { class: "badges" },
      accessory.reachable ? null : h("span", { class: "badge warn", "data-testid": `unreachable-${accessory.id}` }, "Unreachable"),
      battery ? h("span", {
        class: `badge battery${battery.low ? " warn" : ""}`,
        "data-testid": `battery-${accessory.id}`,
        title: battery.low ? "Battery low" : "Battery",
      }, battery.level !== null ? `${battery.level} %` : "low") : null))),
  h("div", { class: "tile-side" }, quickToggle(accessory)),
  h("p", { class: "tile-error", "data-testid": `tile-error-${accessory.id}`, role: "alert", hidden: true }));
}

/**
 * A power switch on the tile, for an accessory whose main service has a writable `on`.
 * @param {Accessory} accessory
 */
function quickToggle(accessory) {
  const service = primaryService(accessory);
  const on = service && service.characteristics.find((c) => c.type === "on" && c.format === "bool" && c.permissions.includes("write"));
  if (!service || !on) return null;
  const button = switchButton(on.value === true, `${accessory.name}: power`, `quick-${accessory.id}`);
  button.addEventListener("click", async (event) => {
    event.stopPropagation();
    const next = button.getAttribute("aria-checked") !== "true";
    button.setAttribute("aria-checked", next ? "true" : "false");
    button.disabled = true;
    const tileEl = button.closest(".tile");
    const note = tileEl && tileEl.querySelector(".tile-error");
    if (note instanceof HTMLElement) note.hidden = true;
    try {
      await api("PUT", `/api/accessories/${enc(accessory.id)}/${enc(service.id)}/on`, { value: next });
      // The tile is drawn again when the device confirms; until then the switch shows the wish.
      button.classList.add("pending");
      setTimeout(() => {
        if (!button.isConnected) return;
        button.classList.remove("pending");
        button.setAttribute("aria-checked", on.value === true ? "true" : "false");
      }, 10000);
    } catch (error) {
      button.setAttribute("aria-checked", on.value === true ? "true" : "false");
      if (note instanceof HTMLElement) {
        note.textContent = messageOf(error);
        note.hidden = false;
      }
    } finally {
      button.disabled = false;
    }
  });
  return button;
}
