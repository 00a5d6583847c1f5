// @ts-check
// The live event stream (/api/events): opened once the home is read, reopened when it drops
// (then the home is read again: nothing is replayed), shown in the top bar.

import { api, currentToken, enc, isUnauthorized } from "./api.js";
import { $ } from "./dom.js";
import { scheduleReload } from "./load.js";
import { state } from "./store.js";

/**
 * What the page does with each kind of event.
 * @typedef {object} StreamHandlers
 * @property {(event: import("./types.js").CharacteristicChange) => void} characteristic
 * @property {(event: import("./types.js").AccessoryChange) => void} accessory
 * @property {() => void} structure a home, room or zone changed
 * @property {(event: import("./types.js").ActionSetChange) => void} actionSet
 * @property {(event: import("./types.js").TriggerChange) => void} trigger
 */

/** @typedef {"connected" | "reconnecting" | "connecting" | "offline"} StreamState */

/** @type {Record<StreamState, string>} */
const TITLES = {
  connected: "Live: values update as they change",
  reconnecting: "The live stream is down; reconnecting",
  connecting: "Opening the live stream",
  offline: "No live stream",
};

/** @type {EventSource | null} */
let stream = null;
/** @type {StreamHandlers | null} */
let handlers = null;
let everConnected = false;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let retryTimer;
let retryDelay = 1000;

/**
 * @param {StreamState} name
 * @param {string} [text]
 */
export function setStreamState(name, text) {
  const el = $("#stream-state", HTMLElement);
  el.dataset.state = name;
  el.textContent = text || name;
  el.title = TITLES[name] || "";
}

export function stopStream() {
  clearTimeout(retryTimer);
  if (stream) stream.close();
  stream = null;
}

/** @param {StreamHandlers} on */
export function connectStream(on) {
  handlers = on;
  stopStream();
  if (state.needToken) return;
  const token = currentToken();
  const url = `/api/events${token ? `?access_token=${enc(token)}` : ""}`;
  setStreamState(everConnected ? "reconnecting" : "connecting");
  const source = new EventSource(url);
  stream = source;
  source.onopen = () => {
    if (stream !== source) return;
    retryDelay = 1000;
    setStreamState("connected");
    // Nothing is replayed: what changed while the stream was down is read again.
    if (everConnected) scheduleReload(0);
    everConnected = true;
  };
  source.onerror = () => {
    if (stream !== source) return;
    setStreamState("reconnecting");
    if (source.readyState === EventSource.CLOSED) {
      // The server answered something else than a stream (a 401, a 503): find out, then retry.
      source.close();
      stream = null;
      retryTimer = setTimeout(probeAndReconnect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 15000);
    }
  };
  listen(source, "characteristic", on.characteristic);
  listen(source, "accessory", on.accessory);
  for (const type of ["home", "room", "zone"]) source.addEventListener(type, () => on.structure());
  listen(source, "action_set", on.actionSet);
  listen(source, "trigger", on.trigger);
}

/**
 * Hands each event's JSON to `handler`; an event that is not JSON is dropped.
 * @template T
 * @param {EventSource} source
 * @param {string} type
 * @param {(data: T) => void} handler
 */
function listen(source, type, handler) {
  source.addEventListener(type, (event) => {
    /** @type {T} */
    let data;
    try {
      data = JSON.parse(/** @type {MessageEvent<string>} */ (event).data);
    } catch {
      return;
    }
    handler(data);
  });
}

async function probeAndReconnect() {
  try {
    await api("GET", "/api/homes");
    if (handlers) connectStream(handlers);
  } catch (error) {
    if (isUnauthorized(error)) return; // the token form reconnects
    retryTimer = setTimeout(probeAndReconnect, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 15000);
  }
}
