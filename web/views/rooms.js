// @ts-check
// Rooms, zones and homes: rename, remove, rooms in zones, the primary home, and adding each.

import { api, enc, messageOf } from "../api.js";
import { $, $$, append, clear, h } from "../dom.js";
import { scheduleReload } from "../load.js";
import { chooseHome, currentHome, describeAccessory, state } from "../store.js";
import { confirmButton } from "../widgets.js";

/** @typedef {import("../types.js").Home} Home */
/** @typedef {import("../types.js").Room} Room */
/** @typedef {import("../types.js").Zone} Zone */
/** @typedef {{value: string, focused: boolean, start: number | null, end: number | null}} Edit */

/**
 * @param {{name: string}} a
 * @param {{name: string}} b
 */
const byName = (a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: "base" });

/** @type {string | null} */
let roomsShape = null;

/**
 * What the user is typing in the rooms view, to carry over a redraw: testid → edit.
 * @param {HTMLElement} container
 */
function editsIn(container) {
  /** @type {Map<string, Edit>} */
  const edits = new Map();
  for (const input of $$("input[data-testid]", HTMLInputElement, container)) {
    const focused = document.activeElement === input;
    if (input.value !== input.defaultValue || focused) {
      edits.set(input.dataset.testid || "", { value: input.value, focused, start: input.selectionStart, end: input.selectionEnd });
    }
  }
  return edits;
}

/**
 * @param {HTMLElement} container
 * @param {Map<string, Edit>} edits
 */
function restoreEdits(container, edits) {
  for (const [testid, edit] of edits) {
    const input = container.querySelector(`input[data-testid="${CSS.escape(testid)}"]`);
    if (!(input instanceof HTMLInputElement)) continue;
    input.value = edit.value;
    if (edit.focused) {
      input.focus({ preventScroll: true });
      try {
        input.setSelectionRange(edit.start, edit.end);
      } catch {
        /* not a text input */
      }
    }
  }
}

/** Draws rooms, zones and homes when they changed, keeping what the user is typing. */
export function renderRooms() {
  const home = currentHome();
  const rooms = $("#rooms", HTMLElement);
  const zones = $("#zones", HTMLElement);
  const homes = $("#homes", HTMLElement);
  const shape = JSON.stringify([state.homes, state.homeId, state.accessories.map((a) => [a.id, a.name])]);
  if (shape === roomsShape) return;
  roomsShape = shape;
  const edits = [editsIn(rooms), editsIn(zones), editsIn(homes)];
  clear(rooms);
  clear(zones);
  clear(homes);
  for (const each of [...state.homes].sort((a, b) => (b.primary ? 1 : 0) - (a.primary ? 1 : 0) || byName(a, b))) append(homes, [homeRow(each)]);
  restoreEdits(homes, edits[2]);
  if (!home) return;
  const defaultRoom = (home.rooms || []).find((room) => room.id === home.default_room);
  const list = [defaultRoom, ...(home.rooms || []).filter((room) => room !== defaultRoom).sort(byName)];
  for (const room of list) if (room) append(rooms, [roomRow(home, room)]);
  if (!(home.zones || []).length) append(zones, [h("p", { class: "placeholder" }, "No zones.")]);
  for (const zone of [...(home.zones || [])].sort(byName)) append(zones, [zoneRow(home, zone)]);
  restoreEdits(rooms, edits[0]);
  restoreEdits(zones, edits[1]);
}

/**
 * A name field and a Rename button for a room, zone or home.
 * @param {string} kind @param {{id: string, name: string, home?: string}} item @param {string} path @param {HTMLElement} error
 */
function renameForm(kind, item, path, error) {
  const input = h("input", { defaultValue: item.name, value: item.name, "data-testid": `${kind}-name-${item.id}`, "aria-label": `${kind} name`, maxlength: 64, autocomplete: "off", required: true });
  const form = h("form", { class: "inline-form grow" }, input, h("button", { type: "submit", "data-testid": `${kind}-rename-${item.id}` }, "Rename"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    if (input.value.trim() === item.name) return;
    try {
      await api("PATCH", path, { name: input.value.trim(), home: item.home });
      scheduleReload(0);
    } catch (e) {
      error.textContent = messageOf(e);
    }
  });
  return form;
}

/**
 * @param {HTMLElement} error
 * @param {string} method
 * @param {string} path
 */
async function act(error, method, path) {
  error.textContent = "";
  try {
    await api(method, path);
    scheduleReload(0);
  } catch (e) {
    error.textContent = messageOf(e);
  }
}

/**
 * @param {Home} home
 * @param {Room} room
 */
function roomRow(home, room) {
  const error = h("p", { class: "form-error", "data-testid": `room-error-${room.id}`, role: "alert" });
  const count = (room.accessories || []).length;
  const isDefault = room.id === home.default_room;
  return h("div", { class: "edit-row", "data-testid": `room-${room.id}` },
    h("div", { class: "edit-main" },
      renameForm("room", { ...room, home: home.id }, `/api/rooms/${enc(room.id)}`, error),
      isDefault
        ? h("span", { class: "muted-text" }, "room for the entire home")
        : confirmButton("Remove", `room-remove-${room.id}`, () => act(error, "DELETE", `/api/rooms/${enc(room.id)}?home=${enc(home.id)}`))),
    h("p", { class: "muted-text" }, count ? `${count} accessor${count === 1 ? "y" : "ies"}: ${(room.accessories || []).map(describeAccessory).join(", ")}` : "empty"),
    error);
}

/**
 * @param {Home} home
 * @param {Zone} zone
 */
function zoneRow(home, zone) {
  const error = h("p", { class: "form-error", "data-testid": `zone-error-${zone.id}`, role: "alert" });
  const members = new Set(zone.rooms || []);
  const chips = (home.rooms || []).map((room) => {
    const inZone = members.has(room.id);
    const chip = h("button", { type: "button", class: "chip", "aria-pressed": inZone ? "true" : "false", "data-testid": `zone-${zone.id}-room-${room.id}` }, room.name);
    chip.addEventListener("click", async () => {
      error.textContent = "";
      chip.disabled = true;
      try {
        await api(inZone ? "DELETE" : "PUT", `/api/zones/${enc(zone.id)}/rooms/${enc(room.id)}?home=${enc(home.id)}`);
        scheduleReload(0);
      } catch (e) {
        error.textContent = messageOf(e);
        chip.disabled = false;
      }
    });
    return chip;
  });
  return h("div", { class: "edit-row", "data-testid": `zone-${zone.id}` },
    h("div", { class: "edit-main" },
      renameForm("zone", { ...zone, home: home.id }, `/api/zones/${enc(zone.id)}`, error),
      confirmButton("Remove", `zone-remove-${zone.id}`, () => act(error, "DELETE", `/api/zones/${enc(zone.id)}?home=${enc(home.id)}`))),
    h("div", { class: "chips", role: "group", "aria-label": `Rooms in ${zone.name}` }, chips),
    error);
}

/**
 * A home: rename it, make it the primary one, remove it (not the primary one: the gateway says why).
 * @param {Home} home
 */
function homeRow(home) {
  const error = h("p", { class: "form-error", "data-testid": `home-error-${home.id}`, role: "alert" });
  const rooms = (home.rooms || []).length;
  const accessories = (home.rooms || []).reduce((sum, room) => sum + (room.accessories || []).length, 0);
  const facts = [`${rooms} room${rooms === 1 ? "" : "s"}`, `${accessories} accessor${accessories === 1 ? "y" : "ies"}`];
  if (home.id === state.homeId) facts.push("shown now");
  const primary = h("button", { type: "button", "data-testid": `home-primary-${home.id}` }, "Make primary");
  primary.addEventListener("click", () => act(error, "POST", `/api/homes/${enc(home.id)}/primary`));
  return h("div", { class: "edit-row", "data-testid": `home-${home.id}` },
    h("div", { class: "edit-main" },
      renameForm("home", home, `/api/homes/${enc(home.id)}`, error),
      home.primary
        ? h("span", { class: "muted-text", "data-testid": `home-is-primary-${home.id}` }, "primary home")
        : h("span", { class: "row-actions" }, primary, confirmButton("Remove", `home-remove-${home.id}`, () => act(error, "DELETE", `/api/homes/${enc(home.id)}`)))),
    h("p", { class: "muted-text" }, facts.join(" · "),
      home.primary ? "" : ". Removing it removes its rooms, zones, scenes and automations; its accessories move to the primary home."),
    error);
}

/**
 * A name field that adds a room or zone to the home shown, or a home (which is then shown).
 * @param {string} formId
 * @param {string} path
 */
function wireAddForm(formId, path) {
  const form = $(formId, HTMLFormElement);
  const input = $("input", HTMLInputElement, form);
  const error = $(".form-error", HTMLElement, form);
  const isHome = path === "/api/homes";
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    try {
      const added = /** @type {{id?: string} | null} */ (await api("POST", path, isHome ? { name: input.value.trim() } : { name: input.value.trim(), home: state.homeId || undefined }));
      input.value = "";
      if (isHome && added && added.id) chooseHome(added.id);
      scheduleReload(0);
    } catch (e) {
      error.textContent = messageOf(e);
    }
  });
}

export function wireAddForms() {
  wireAddForm("#add-room-form", "/api/rooms");
  wireAddForm("#add-zone-form", "/api/zones");
  wireAddForm("#add-home-form", "/api/homes");
}
