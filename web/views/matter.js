// @ts-check
// Matter: the bridge's QR code and manual code while they commission it (its own while it is on no
// fabric, an open window's), the ecosystems (fabrics) it belongs to with a confirmed "Remove", and
// "Add to another ecosystem", which opens a commissioning window and shows its code and the time
// left. Read from /api/matter when the view is shown, after each action, and every few seconds while
// a window is open (another ecosystem commissioning through it closes it and adds its fabric).

import { api, apiImage, messageOf } from "../api.js";
import { $, append, clear, h } from "../dom.js";
import { ecosystemName, groupedCode, minutesAndSeconds } from "../matter-codes.js";
import { confirmButton, fact } from "../widgets.js";

/** @typedef {import("../types.js").MatterState} MatterState */
/** @typedef {import("../types.js").MatterFabric} MatterFabric */

/** @type {MatterState | null} */
let current = null;
/** @type {string} */
let loadError = "";
/** @type {Map<string, string>} QR codes as data: addresses, by the payload they draw (their title names it) */
const qrCodes = new Map();
/** The payload whose QR code came back drawing another, once read again for it. */
let rereadFor = "";
/** When the open window closes, by this page's clock; and the timer that shows the time left. */
let windowEnds = 0;
/** @type {ReturnType<typeof setInterval> | null} */
let ticking = null;
/** How often the bridge is read again while a window is open, and that timer. */
const followEvery = 2500;
/** @type {ReturnType<typeof setInterval> | null} */
let following = null;
/** The read in flight, if any, and whether another is asked for after it: one read at a time. */
/** @type {Promise<void> | null} */
let loading = null;
let again = false;

/**
 * Reads the bridge again and draws it. While a read is in flight, one more follows it (a change
 * just made is read after it), and the promise settles once that one is drawn.
 * @returns {Promise<void>}
 */
export function loadMatter() {
  if (loading) {
    again = true;
    return loading;
  }
  loading = (async () => {
    do {
      again = false;
      await readMatter();
    } while (again);
  })().finally(() => { loading = null; });
  return loading;
}

async function readMatter() {
  const before = shown();
  try {
    current = /** @type {MatterState} */ (await api("GET", "/api/matter"));
    loadError = "";
  } catch (error) {
    loadError = messageOf(error);
  }
  windowEnds = current?.window ? Date.now() + current.window.seconds_left * 1000 : 0;
  // A read that changes nothing draws nothing: a "Remove" waiting for its second press stays armed.
  if (shown() !== before) renderMatter();
  followWhileOpen(Boolean(current?.window));
}

/** What the view shows of the last read, but the time left (the countdown keeps that). */
function shown() {
  const window = current?.window ? { ...current.window, seconds_left: 0 } : null;
  return JSON.stringify([loadError, current && { ...current, window }]);
}

/**
 * Reads the bridge every few seconds while a window is open, skipping a turn while a read is in
 * flight; stops once it has closed (by its time, by the other ecosystem joining, or elsewhere).
 * @param {boolean} open
 */
function followWhileOpen(open) {
  if (open && !following) {
    following = setInterval(() => { if (!loading) loadMatter(); }, followEvery);
  } else if (!open && following) {
    clearInterval(following);
    following = null;
  }
}

export function renderMatter() {
  const container = $("#matter", HTMLElement);
  clear(container);
  if (ticking) clearInterval(ticking);
  ticking = null;
  if (loadError) append(container, [h("p", { class: "form-error", role: "alert", "data-testid": "matter-error" }, loadError)]);
  if (!current) {
    if (!loadError) append(container, [h("p", { class: "placeholder" }, "Loading the Matter bridge…")]);
    return;
  }
  if (!current.enabled) {
    append(container, [
      h("p", { class: "placeholder", "data-testid": "matter-off" },
        "The Matter bridge is off. To add this house to Google Home, Alexa, SmartThings or Apple Home over Matter, set ",
        h("code", null, "matter.enabled: true"), " in homegate.yaml (or HOMEGATE_MATTER_ENABLED=true) and restart homegate."),
    ]);
    return;
  }
  if (!current.serving) {
    append(container, [h("p", { class: "placeholder", "data-testid": "matter-starting" },
      "The Matter bridge does not serve yet (it is starting, or its port is taken: the health report says why).")]);
    return;
  }
  append(container, [bridgeCard(current)]);
}

/** @param {MatterState} bridge */
function bridgeCard(bridge) {
  const error = h("p", { class: "form-error", role: "alert", "data-testid": "matter-action-error" });
  /** @param {() => Promise<unknown>} action */
  const act = async (action) => {
    error.textContent = "";
    try {
      await action();
    } catch (e) {
      error.textContent = messageOf(e);
      return;
    }
    await loadMatter();
  };
  const fabrics = bridge.fabrics;
  const open = bridge.window;
  return h("article", { class: "card homekit-bridge", "data-testid": "matter-bridge" },
    h("header", { class: "card-head" }, h("h3", null, "Matter bridge"),
      h("span", { class: `badge ${fabrics.length ? "ok" : ""}`, "data-testid": "matter-paired" },
        fabrics.length ? `In ${fabrics.length} ecosystem${fabrics.length === 1 ? "" : "s"}` : "Not added yet")),
    bridge.manual_code && bridge.qr_payload ? setup(bridge.manual_code, bridge.qr_payload, open !== null) : null,
    open ? windowPart(open, act) : addButton(fabrics.length > 0, act),
    h("dl", { class: "facts" }, fact("UDP port", bridge.port === null ? "" : String(bridge.port))),
    h("h4", null, "Ecosystems (fabrics)"),
    fabrics.length
      ? h("ul", { class: "controllers", "data-testid": "matter-fabrics" }, fabrics.map((fabric) =>
        h("li", { "data-testid": `matter-fabric-${fabric.index}` },
          h("span", { class: "fabric-name" }, ecosystemName(fabric), fabric.label ? ` (${fabric.label})` : ""),
          h("span", { class: "badge" }, `fabric ${fabric.index}`),
          confirmButton("Remove", `matter-remove-${fabric.index}`, () =>
            act(() => api("DELETE", `/api/matter/fabrics/${fabric.index}`))))))
      : h("p", { class: "muted-text", "data-testid": "matter-fabrics" }, "None yet: add the bridge with the code above."),
    fabrics.length
      ? h("p", { class: "hint" }, "Removing an ecosystem here is what its app's \"remove device\" does: its devices from homegate leave it at once.")
      : null,
    error);
}

/**
 * The QR code and manual code that commission the bridge now.
 * @param {string} code
 * @param {string} payload
 * @param {boolean} fromWindow
 */
function setup(code, payload, fromWindow) {
  return h("div", { class: "homekit-setup" },
    qrImage(payload, code),
    h("div", null,
      h("p", { class: "hint" }, fromWindow
        ? "In the other ecosystem's app (Google Home, Alexa, SmartThings, Apple Home): add a Matter device, then scan this code or type it."
        : "In an ecosystem's app (Google Home, Alexa, SmartThings, Apple Home): add a Matter device, then scan this code or type it."),
      h("p", { class: "setup-code", "data-testid": "matter-code", "aria-label": "Manual pairing code" }, groupedCode(code))));
}

/**
 * "Add to another ecosystem": opens a window for 15 minutes.
 * @param {boolean} onAFabric
 * @param {(action: () => Promise<unknown>) => Promise<void>} act
 */
function addButton(onAFabric, act) {
  const button = h("button", { type: "button", "data-testid": "matter-open-window" },
    onAFabric ? "Add to another ecosystem" : "Make a fresh code for 15 minutes");
  button.addEventListener("click", () => {
    button.disabled = true;
    act(() => api("POST", "/api/matter/window")).finally(() => { button.disabled = false; });
  });
  return h("div", { class: "card-foot" }, button,
    h("p", { class: "hint" }, onAFabric
      ? "Matter lets the bridge be in several ecosystems at once: this opens a commissioning window with a code of its own, for 15 minutes."
      : "The code above works until an ecosystem has added the bridge; after that, each other ecosystem gets a code here."));
}

/**
 * The open window: the time left, and "Close the window".
 * @param {NonNullable<MatterState["window"]>} window
 * @param {(action: () => Promise<unknown>) => Promise<void>} act
 */
function windowPart(window, act) {
  const left = h("strong", { "data-testid": "matter-window-left" }, minutesAndSeconds((windowEnds - Date.now()) / 1000));
  // At 0:00 the next read (every few seconds while a window is open) finds it closed.
  ticking = setInterval(() => { left.textContent = minutesAndSeconds((windowEnds - Date.now()) / 1000); }, 1000);
  const close = h("button", { type: "button", "data-testid": "matter-close-window" }, "Close the window");
  close.addEventListener("click", () => {
    close.disabled = true;
    act(() => api("DELETE", "/api/matter/window")).finally(() => { close.disabled = false; });
  });
  return h("div", { class: "card-foot", "data-testid": "matter-window" },
    h("p", null, "Commissioning window open: ", left, " left",
      window.opened_by === "controller" ? " (an ecosystem's app opened it, and shows its code)" : ""),
    close);
}

/**
 * The QR code, fetched with the token (an <img> cannot send it). The route draws the code current
 * when it answers, which may be newer than `payload`: its title says which, and another is read then.
 * @param {string} payload
 * @param {string} code
 */
function qrImage(payload, code) {
  const img = h("img", { class: "qr", alt: `QR code for ${code}`, width: 200, height: 200, "data-testid": "matter-qr" });
  const known = qrCodes.get(payload);
  if (known) {
    img.src = known;
    return img;
  }
  apiImage("/api/matter/qr.svg").then((address) => {
    if (!decodeURIComponent(address).includes(`<title>Matter setup code ${payload}</title>`)) {
      img.alt = "The code has changed: reading it again…";
      if (rereadFor !== payload) loadMatter();  // once per code: a title that never matched would read on and on
      rereadFor = payload;
      return;
    }
    qrCodes.set(payload, address);
    img.src = address;
  }, (error) => {
    img.alt = `The QR code could not be loaded: ${messageOf(error)}`;
  });
  return img;
}
