// @ts-check
// The open accessory: its facts, room and name, and every service with its characteristics.

import { api, enc, messageOf } from "../api.js";
import { batteryOf, categoryOf, isConfigService } from "../accessory.js";
import { $, $$, append, clear, h } from "../dom.js";
import { scheduleReload } from "../load.js";
import { pathOf } from "../paths.js";
import { changed, currentHome, state } from "../store.js";
import { fact, timeEl } from "../widgets.js";
import { categoryName, charName, permissionsText, rangeText, serviceName } from "../words.js";
import { clearBindings, control, isPending, updateBindings } from "./controls.js";
import { renderView } from "./nav.js";

/** @typedef {import("../types.js").Accessory} Accessory */
/** @typedef {import("../types.js").Service} Service */
/** @typedef {import("../types.js").Characteristic} Characteristic */
/** @typedef {import("../types.js").Home} Home */
/** @typedef {import("../types.js").Placement} Placement */

const pane = () => $("#detail", HTMLElement);

/** @param {string} id */
export function openDetail(id) {
  const previous = state.selected;
  state.selected = id;
  renderDetail();
  for (const el of $$(".tile", HTMLElement)) {
    const on = el.dataset.accessory === id;
    el.classList.toggle("selected", on);
    const button = el.querySelector(".tile-open");
    if (button) button.setAttribute("aria-expanded", on ? "true" : "false");
  }
  renderView();
  if (previous !== id) {
    pane().scrollTop = 0;
    const heading = pane().querySelector("h2");
    if (heading) heading.focus({ preventScroll: true });
  }
}

export function closeDetail() {
  const id = state.selected;
  state.selected = null;
  renderDetail();
  for (const el of document.querySelectorAll(".tile.selected")) el.classList.remove("selected");
  renderView();
  if (id) {
    const button = document.querySelector(`[data-testid="accessory-${CSS.escape(id)}"]`);
    if (button instanceof HTMLElement) button.focus({ preventScroll: true });
  }
}

/** After the accessories were read again: the open one may be gone. */
export function closeDetailIfGone() {
  if (state.selected && !state.byId.has(state.selected)) closeDetail();
}

export function updateLastSeen() {
  const el = document.querySelector("#detail [data-testid='last-seen']");
  if (!el || !state.selected) return;
  const seen = state.lastSeen.get(state.selected);
  clear(el);
  append(el, [seen ? timeEl(seen) : "none since homegate started"]);
}

/** @type {string | null} */
let detailShape = null;

/**
 * What the detail is drawn from, values left out: those reach its controls through bindings.
 * @param {Accessory | null | undefined} accessory
 */
function shapeOf(accessory) {
  if (!accessory) return "none";
  const home = state.homes.find((x) => x.id === accessory.home) || currentHome();
  const services = accessory.services.map((service) => ({
    ...service,
    characteristics: service.characteristics.map(({ value, ...rest }) => rest),
  }));
  return JSON.stringify([{ ...accessory, services }, home && home.rooms.map((room) => [room.id, room.name])]);
}

/** Draws the open accessory again, unless nothing it shows but values changed: then the
 *  controls only take the new values, and a control in use (an open select) is left alone. */
export function renderDetail(force = false) {
  const accessory = state.selected ? state.byId.get(state.selected) : null;
  const shape = shapeOf(accessory);
  if (!force && shape === detailShape && accessory) {
    for (const service of accessory.services) {
      for (const c of service.characteristics) {
        const key = pathOf(accessory.id, service.id, c.type);
        if (!isPending(key)) updateBindings(key, c.value);
      }
    }
    updateLastSeen();
    return;
  }
  detailShape = shape;
  const el = pane();
  clearBindings();
  clear(el);
  el.hidden = false;
  if (!accessory) {
    append(el, [h("p", { class: "placeholder" }, "Choose an accessory to see its services and characteristics.")]);
    el.classList.add("empty");
    return;
  }
  el.classList.remove("empty");
  const home = state.homes.find((x) => x.id === accessory.home) || currentHome();
  const battery = batteryOf(accessory);
  const seen = state.lastSeen.get(accessory.id);
  append(el, [
    h("div", { class: "detail-head" },
      h("button", { type: "button", class: "back", "data-testid": "detail-close", onclick: closeDetail, "aria-label": "Close" },
        h("span", { class: "narrow" }, "‹ Back"), h("span", { class: "wide" }, "Close ✕")),
      h("h2", { tabindex: "-1", "data-testid": "detail-name" }, accessory.name),
      accessory.reachable
        ? h("span", { class: "badge ok", "data-testid": "detail-reachable" }, "Reachable")
        : h("span", { class: "badge warn", "data-testid": "detail-unreachable" }, "Unreachable")),
    accessory.reachable ? null : h("p", { class: "notice", "data-testid": "detail-unreachable-reason" },
      `${accessory.unreachable_reason ? `Unreachable: ${accessory.unreachable_reason}. Its` : "The device does not answer: its"} values are the last it reported, and writes are refused until it is back.`),
    h("dl", { class: "facts" },
      fact("Category", `${categoryName(categoryOf(accessory))} (${accessory.category})`),
      fact("Manufacturer", accessory.manufacturer),
      fact("Model", accessory.model),
      fact("Firmware", accessory.firmware),
      fact("Bridge", accessory.bridge),
      fact("Id", h("code", null, accessory.id)),
      battery ? fact("Battery", battery.level !== null ? `${battery.level} %${battery.low ? " (low)" : ""}` : "low") : null,
      fact("Last report", h("span", { "data-testid": "last-seen" }, seen ? timeEl(seen) : "none since homegate started"))),
    accessorySettings(accessory, home),
    h("div", { class: "services" }, (accessory.services || []).map((service) => serviceView(accessory, service))),
  ]);
}

/**
 * Its room and its name.
 * @param {Accessory} accessory
 * @param {Home | null} home
 */
function accessorySettings(accessory, home) {
  const rooms = home ? home.rooms || [] : [];
  const error = h("p", { class: "form-error", "data-testid": `accessory-error-${accessory.id}`, role: "alert" });
  const select = h("select", { "data-testid": `room-select-${accessory.id}`, id: `room-select-${accessory.id}` },
    rooms.map((room) => h("option", { value: room.id, selected: room.id === accessory.room }, room.name)));
  select.addEventListener("change", async () => {
    error.textContent = "";
    try {
      const moved = /** @type {Placement} */ (await api("PUT", `/api/accessories/${enc(accessory.id)}/room`, { room: select.value, home: home && home.id }));
      accessory.room = moved.room;
      accessory.home = moved.home;
      changed("accessory");
      scheduleReload();
    } catch (e) {
      error.textContent = messageOf(e);
      select.value = accessory.room ?? "";
    }
  });
  const nameInput = h("input", { value: accessory.name, "data-testid": `rename-${accessory.id}`, id: `rename-${accessory.id}`, maxlength: 64, autocomplete: "off" });
  /** @param {string | null} name null: the mapping's name again */
  const rename = async (name) => {
    error.textContent = "";
    try {
      const renamed = /** @type {Placement} */ (await api("PUT", `/api/accessories/${enc(accessory.id)}/name`, { name }));
      accessory.name = renamed.name;
      changed("accessory");
      renderDetail();
    } catch (e) {
      error.textContent = messageOf(e);
    }
  };
  const identified = h("span", { class: "quiet-note", "data-testid": `identified-${accessory.id}`, role: "status" });
  const identify = async () => {
    error.textContent = "";
    identified.textContent = "";
    try {
      await api("POST", `/api/accessories/${enc(accessory.id)}/identify`);
      identified.textContent = "Asked it to show itself";
    } catch (e) {
      error.textContent = messageOf(e);
    }
  };
  return h("div", { class: "acc-settings" },
    h("label", { for: `room-select-${accessory.id}` }, "Room"),
    select,
    h("label", { for: `rename-${accessory.id}` }, "Name"),
    h("form", { class: "inline-form", onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); rename(nameInput.value.trim()); } },
      nameInput,
      h("button", { type: "submit", "data-testid": `rename-save-${accessory.id}` }, "Rename"),
      h("button", { type: "button", class: "quiet", title: "Use the mapping's name again", onclick: () => rename(null) }, "Reset")),
    h("span", null),
    h("div", { class: "inline-form" },
      h("button", { type: "button", "data-testid": `identify-${accessory.id}`, title: "Make the device blink or beep, to tell which one it is", onclick: identify }, "Identify"),
      identified),
    error);
}

/**
 * A service, open unless it is about the accessory rather than for using it.
 * @param {Accessory} accessory
 * @param {Service} service
 */
function serviceView(accessory, service) {
  const key = `${accessory.id}/${service.id}`;
  const muted = isConfigService(service);
  const open = muted ? state.openServices.has(key) : !state.closedServices.has(key);
  const details = h("details", { class: `service${muted ? " muted" : ""}`, open, "data-testid": `service-${accessory.id}-${service.id}` },
    h("summary", null,
      h("span", { class: "service-name" }, serviceName(service)),
      h("code", { class: "service-type" }, service.type),
      service.primary ? h("span", { class: "badge" }, "primary") : null,
      service.hidden ? h("span", { class: "badge" }, "hidden") : null,
      muted && !service.hidden ? h("span", { class: "badge" }, "configuration") : null),
    h("ul", { class: "chars" }, service.characteristics.map((c) => characteristicView(accessory, service, c))));
  details.addEventListener("toggle", () => {
    if (muted) {
      if (details.open) state.openServices.add(key);
      else state.openServices.delete(key);
    } else if (details.open) state.closedServices.delete(key);
    else state.closedServices.add(key);
  });
  return details;
}

/**
 * @param {Accessory} accessory
 * @param {Service} service
 * @param {Characteristic} characteristic
 */
function characteristicView(accessory, service, characteristic) {
  const key = pathOf(accessory.id, service.id, characteristic.type);
  const tid = `${accessory.id}-${service.id}-${characteristic.type}`;
  const meta = [
    h("code", null, characteristic.type),
    h("span", null, characteristic.format),
    characteristic.unit ? h("span", null, characteristic.unit) : null,
    h("span", { class: "perms", title: "permissions" }, permissionsText(characteristic.permissions)),
    rangeText(characteristic) ? h("span", null, rangeText(characteristic)) : null,
  ].filter(Boolean);
  return h("li", { class: `char${isPending(key) ? " pending" : ""}`, "data-key": key, "data-testid": `row-${tid}` },
    h("div", { class: "char-main" },
      h("span", { class: "char-name", id: `label-${tid}` }, charName(characteristic.type)),
      control(accessory, service, characteristic, tid, key)),
    h("div", { class: "char-meta" }, meta),
    h("p", { class: "char-error", "data-key": key, "data-testid": `error-${tid}`, role: "alert", hidden: true }));
}
