// @ts-check
// The dialog that asks for the gateway's token (`http.token`), kept in this browser.

import { useToken } from "../api.js";
import { $ } from "../dom.js";
import { connectLive } from "../live.js";
import { reloadAll } from "../load.js";
import { state } from "../store.js";
import { setStreamState, stopStream } from "../stream.js";
import { showBanner } from "./banner.js";

const dialog = () => $("#token-dialog", HTMLDialogElement);
const input = () => $("#token-input", HTMLInputElement);

/**
 * Stops the stream and opens the dialog with the gateway's reason.
 * @param {string} reason
 */
export function askForToken(reason) {
  state.needToken = true;
  stopStream();
  setStreamState("offline", "needs token");
  $("#token-reason", HTMLElement).textContent = reason || "";
  if (!dialog().open) {
    input().value = "";
    if (typeof dialog().showModal === "function") dialog().showModal();
    else dialog().setAttribute("open", "");
  }
  input().focus();
}

export function tokenDialogOpen() {
  return dialog().open;
}

/** A token given: used from now on, and the home read with it. */
export function wireTokenForm() {
  $("#token-form", HTMLFormElement).addEventListener("submit", () => {
    useToken(input().value.trim());
    state.needToken = false;
    showBanner(null);
    reloadAll().then((ok) => {
      if (ok) connectLive();
    });
  });
}
