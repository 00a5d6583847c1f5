// @ts-check
// HomeKit: each bridge's QR code and setup code for adding it in Apple Home, whether it is
// advertised, who has paired, and the actions a person needs (remove a controller, remove all,
// a new setup code, a new identity). Read from /api/homekit when the view is shown and after each action.

import { api, apiImage, messageOf } from "../api.js";
import { $, append, clear, h } from "../dom.js";
import { confirmButton, fact } from "../widgets.js";

/** @typedef {import("../types.js").HomeKitBridge} HomeKitBridge */
/** @typedef {import("../types.js").HomeKitState} HomeKitState */

/** @type {HomeKitState | null} */
let current = null;
/** @type {string} */
let loadError = "";
/** @type {Map<string, string>} each bridge's QR code as a data: address, by bridge number and the URI it draws */
const qrCodes = new Map();

/** Reads the bridges again and draws them. */
export async function loadHomeKit() {
  try {
    current = /** @type {HomeKitState} */ (await api("GET", "/api/homekit"));
    loadError = "";
  } catch (error) {
    loadError = messageOf(error);
  }
  renderHomeKit();
}

export function renderHomeKit() {
  const container = $("#homekit", HTMLElement);
  clear(container);
  if (loadError) {
    append(container, [h("p", { class: "form-error", role: "alert", "data-testid": "homekit-error" }, loadError)]);
  }
  if (!current) {
    if (!loadError) append(container, [h("p", { class: "placeholder" }, "Loading the HomeKit bridge…")]);
    return;
  }
  if (!current.enabled) {
    append(container, [
      h("p", { class: "placeholder", "data-testid": "homekit-off" },
        "The HomeKit bridge is off. To add this house to Apple Home, set ", h("code", null, "hap.enabled: true"),
        " in homegate.yaml (or HOMEGATE_HAP_ENABLED=true) and restart homegate."),
    ]);
    return;
  }
  if (!current.bridges.length) {
    append(container, [h("p", { class: "placeholder" }, "The HomeKit bridge is starting…")]);
    return;
  }
  for (const bridge of current.bridges) append(container, [bridgeCard(bridge)]);
}

/** @param {HomeKitBridge} bridge */
function bridgeCard(bridge) {
  const n = bridge.number;
  const error = h("p", { class: "form-error", role: "alert", "data-testid": `homekit-action-error-${n}` });
  /** @param {() => Promise<unknown>} action */
  const act = async (action) => {
    error.textContent = "";
    try {
      await action();
    } catch (e) {
      error.textContent = messageOf(e);
      return;
    }
    await loadHomeKit();
  };
  const base = `/api/homekit/bridges/${n}`;
  const newCode = h("button", { type: "button", "data-testid": `homekit-new-code-${n}` }, "New setup code");
  newCode.addEventListener("click", () => {
    newCode.disabled = true;
    act(() => api("POST", `${base}/setup-code`)).finally(() => { newCode.disabled = false; });
  });
  const advertised = bridge.advertisement.state === "advertised";
  return h("article", { class: "card homekit-bridge", "data-testid": `homekit-bridge-${n}` },
    h("header", { class: "card-head" }, h("h3", null, bridge.name),
      h("span", { class: `badge ${bridge.paired ? "ok" : ""}`, "data-testid": `homekit-paired-${n}` }, bridge.paired ? "Paired" : "Not paired")),
    h("div", { class: "homekit-setup" },
      qrImage(bridge),
      h("div", null,
        h("p", { class: "hint" }, "In the Home app: +, Add Accessory, then scan this code; or More options…, pick the bridge and type the code."),
        h("p", { class: "setup-code", "data-testid": `homekit-code-${n}`, "aria-label": "Setup code" }, bridge.setup_code),
        newCode)),
    h("dl", { class: "facts" },
      fact("Port", String(bridge.port)),
      fact("Accessories", String(bridge.accessories)),
      fact("Configuration (c#)", String(bridge.configuration_number)),
      fact("Device id", bridge.device_id),
      fact("On the network", h("span", { class: advertised ? "" : "warn-text", "data-testid": `homekit-advertisement-${n}` },
        advertised ? bridge.advertisement.detail : `${bridge.advertisement.state === "starting" ? "starting" : "not advertised"}: ${bridge.advertisement.detail}`))),
    h("h4", null, "Paired controllers"),
    bridge.controllers.length
      ? h("ul", { class: "controllers", "data-testid": `homekit-controllers-${n}` }, bridge.controllers.map((controller) =>
        h("li", { "data-testid": `homekit-controller-${controller.id}` },
          h("code", null, controller.id),
          controller.admin ? h("span", { class: "badge" }, "admin") : null,
          confirmButton("Remove", `homekit-remove-${controller.id}`, () =>
            act(() => api("DELETE", `${base}/pairings/${encodeURIComponent(controller.id)}`))))))
      : h("p", { class: "muted-text", "data-testid": `homekit-controllers-${n}` }, "None: the bridge can be added to a home."),
    bridge.controllers.length
      ? h("div", { class: "card-foot" },
        confirmButton("Remove all pairings", `homekit-remove-all-${n}`, () => act(() => api("DELETE", `${base}/pairings`))),
        h("p", { class: "hint" }, "After deleting the home in Apple Home, this lets the bridge be added again."))
      : null,
    h("div", { class: "card-foot" },
      confirmButton("New identity", `homekit-new-identity-${n}`, () => act(() => api("POST", `${base}/identity`))),
      h("p", { class: "hint" },
        "When Apple Home says the accessory is already added even with no pairing left: a new device id and setup code, every pairing removed. ",
        "To Apple Home it is a new bridge; rooms, scenes and automations of the old one do not carry over.")),
    error);
}

/**
 * The QR code of the bridge's setup URI, fetched with the token (an <img> cannot send it).
 * @param {HomeKitBridge} bridge
 */
function qrImage(bridge) {
  const key = `${bridge.number} ${bridge.setup_uri}`;
  const img = h("img", { class: "qr", alt: `QR code for ${bridge.setup_code}`, width: 200, height: 200, "data-testid": `homekit-qr-${bridge.number}` });
  const known = qrCodes.get(key);
  if (known) {
    img.src = known;
    return img;
  }
  apiImage(`/api/homekit/bridges/${bridge.number}/qr.svg`).then((address) => {
    qrCodes.set(key, address);
    img.src = address;
  }, (error) => {
    img.alt = `The QR code could not be loaded: ${messageOf(error)}`;
  });
  return img;
}
