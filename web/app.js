// homegate's web page: a client of the HTTP API (docs/http-api.md), nothing more.
// Plain script, no build step, no inline code (the server's Content-Security-Policy forbids it).
"use strict";

(() => {
  // MARK: state

  const TOKEN_KEY = "homegate.token";
  const HOME_KEY = "homegate.home";
  const GROUP_KEY = "homegate.groupBy";
  const VIEWS = ["accessories", "scenes", "automations", "rooms"];
  /** The section in the address (#scenes), so that a reload or a bookmark keeps it. */
  const viewFromHash = () => (VIEWS.includes(location.hash.slice(1)) ? location.hash.slice(1) : "accessories");

  const state = {
    token: readStorage(TOKEN_KEY) || "",
    homes: [],
    primary: null,
    homeId: readStorage(HOME_KEY) || null,
    accessories: [],
    byId: new Map(),
    actionSets: [],
    triggers: [],
    groupBy: readStorage(GROUP_KEY) === "category" ? "category" : "room",
    view: viewFromHash(),
    selected: null, // the accessory whose detail is open
    openServices: new Set(), // "accessory/service" of services the user opened or closed against the default
    closedServices: new Set(),
    lastResults: new Map(), // action set id -> {time, source, results, error}
    lastFires: new Map(), // trigger id -> the last `fired` event seen
    lastSeen: new Map(), // accessory id -> when its device last reported: the gateway's last_seen, or a later value change
    pending: new Map(), // characteristic key -> {value, timer}
    eventCount: new Map(), // characteristic key -> how many value events the page has seen
    loaded: false,
    needToken: false,
  };

  /** Controls of the open detail that show a characteristic's value: key -> Set of update(value). */
  const bindings = new Map();

  const $ = (selector, root = document) => root.querySelector(selector);

  function readStorage(key) {
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  }

  function writeStorage(key, value) {
    try {
      if (value === null || value === undefined || value === "") localStorage.removeItem(key);
      else localStorage.setItem(key, value);
    } catch {
      /* private mode: kept for this page only */
    }
  }

  // MARK: DOM helper

  /** h("button", {class: "x", "data-testid": "y", onclick: fn}, "text", child…) */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    if (attrs) {
      for (const [name, value] of Object.entries(attrs)) {
        if (value === undefined || value === null || value === false) continue;
        if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
        else if (name === "class") el.className = value;
        else if (name === "text") el.textContent = value;
        else if (name in el && !name.includes("-") && name !== "list" && name !== "form") el[name] = value;
        else el.setAttribute(name, value === true ? "" : String(value));
      }
    }
    append(el, children);
    return el;
  }

  function append(el, children) {
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }

  function clear(el) {
    while (el.firstChild) el.removeChild(el.firstChild);
    return el;
  }

  // MARK: the API

  class ApiError extends Error {
    constructor(status, body) {
      super((body && body.error) || (status ? `HTTP ${status}` : "the gateway cannot be reached"));
      this.status = status;
      this.body = body || {};
      this.kind = this.body.kind;
      this.data = this.body.data;
    }
  }

  const enc = encodeURIComponent;

  async function api(method, path, body) {
    const headers = { Accept: "application/json" };
    if (state.token) headers.Authorization = `Bearer ${state.token}`;
    const init = { method, headers, cache: "no-store" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      throw new ApiError(0, { error: `the gateway cannot be reached (${error.message})`, kind: "network" });
    }
    const text = await response.text();
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = { error: text };
      }
    }
    if (response.status === 401) {
      askForToken((data && data.error) || "this gateway needs a token");
      throw new ApiError(401, data);
    }
    if (!response.ok) throw new ApiError(response.status, data);
    return data;
  }

  function withHome(path) {
    return state.homeId ? `${path}${path.includes("?") ? "&" : "?"}home=${enc(state.homeId)}` : path;
  }

  // MARK: loading

  let reloading = null;
  let reloadAgain = false;

  async function reloadAll() {
    if (reloading) {
      reloadAgain = true;
      return reloading;
    }
    reloading = (async () => {
      let ok = false;
      try {
        do {
          reloadAgain = false;
          ok = await loadOnce();
        } while (reloadAgain);
      } finally {
        reloading = null;
      }
      return ok;
    })();
    return reloading;
  }

  async function loadOnce() {
    try {
      const [homes, tree] = await Promise.all([api("GET", "/api/homes"), api("GET", "/api/accessories")]);
      state.homes = homes.homes || [];
      state.primary = homes.primary;
      if (!state.homes.some((home) => home.id === state.homeId)) state.homeId = state.primary || (state.homes[0] && state.homes[0].id) || null;
      setAccessories(tree.accessories || []);
      const [sets, triggers] = await Promise.all([
        api("GET", withHome("/api/action-sets")),
        api("GET", withHome("/api/triggers")),
      ]);
      state.actionSets = sets.action_sets || [];
      state.triggers = triggers.triggers || [];
      state.loaded = true;
      state.needToken = false;
      showBanner(null);
      renderAll();
      return true;
    } catch (error) {
      if (error.status === 401) {
        showBanner("This gateway needs a token.", "Enter token", () => askForToken(error.message));
      } else {
        showBanner(`Could not load the home: ${error.message}`, "Try again", () => reloadAll());
      }
      return false;
    }
  }

  function setAccessories(list) {
    state.accessories = list;
    state.byId = new Map(list.map((accessory) => [accessory.id, accessory]));
    for (const accessory of list) {
      const known = state.lastSeen.get(accessory.id);
      if (accessory.last_seen && (!known || Date.parse(known) < Date.parse(accessory.last_seen))) state.lastSeen.set(accessory.id, accessory.last_seen);
    }
    if (state.selected && !state.byId.has(state.selected)) closeDetail();
  }

  let reloadTimer = null;
  /** Coalesces the refetches a burst of structural events asks for. */
  function scheduleReload(delay = 150) {
    clearTimeout(reloadTimer);
    reloadTimer = setTimeout(() => reloadAll(), delay);
  }

  async function reloadAutomations() {
    try {
      const [sets, triggers] = await Promise.all([api("GET", withHome("/api/action-sets")), api("GET", withHome("/api/triggers"))]);
      state.actionSets = sets.action_sets || [];
      state.triggers = triggers.triggers || [];
      renderScenes();
      renderTriggers();
    } catch (error) {
      if (error.status !== 401) showBanner(`Could not load scenes and automations: ${error.message}`);
    }
  }

  // MARK: the model

  function currentHome() {
    return state.homes.find((home) => home.id === state.homeId) || null;
  }

  function accessoriesOfHome() {
    const home = currentHome();
    return state.accessories.filter((accessory) => (accessory.home ? accessory.home === state.homeId : home && home.primary));
  }

  function roomName(id) {
    for (const home of state.homes) {
      const room = (home.rooms || []).find((r) => r.id === id);
      if (room) return room.name;
    }
    return id || "No room";
  }

  function findCharacteristic(accessoryId, serviceId, type) {
    const accessory = state.byId.get(accessoryId);
    const service = accessory && accessory.services.find((s) => s.id === serviceId);
    const characteristic = service && service.characteristics.find((c) => c.type === type);
    return characteristic ? { accessory, service, characteristic } : null;
  }

  /** A characteristic named as action sets and triggers name it: "bulb/lightbulb/brightness". */
  function describePath(path) {
    const [a, s, c] = String(path || "").split("/");
    const found = findCharacteristic(a, s, c);
    if (!found) return path;
    // The service is named only where the accessory has the characteristic in more than one.
    const twins = found.accessory.services.filter((x) => x.characteristics.some((y) => y.type === c));
    const service = twins.length > 1 ? ` · ${serviceName(found.service)}` : "";
    return `${found.accessory.name}${service} · ${charName(c)}`;
  }

  // MARK: words

  const CATEGORY_NAMES = {
    lightbulb: "Lights", outlet: "Outlets", switch: "Switches", sensor: "Sensors", thermostat: "Thermostats",
    door_lock: "Locks", window_covering: "Window coverings", programmable_switch: "Buttons",
    garage_door_opener: "Garage doors", fan: "Fans", security_system: "Security systems", bridge: "Bridges",
    other: "Other",
  };

  const CHAR_NAMES = {
    on: "Power", current_relative_humidity: "Humidity", current_ambient_light_level: "Light level",
    programmable_switch_event: "Button event", color_temperature: "Colour temperature",
  };

  const UNITS = { percentage: "%", celsius: "°C", fahrenheit: "°F", arcdegrees: "°", lux: "lx", seconds: "s" };

  // HAP's meaning of enumerated values.
  const ENUMS = {
    current_door_state: ["open", "closed", "opening", "closing", "stopped"],
    target_door_state: ["open", "closed"],
    contact_sensor_state: ["closed", "open"],
    position_state: ["closing", "opening", "stopped"],
    charging_state: ["not charging", "charging", "not chargeable"],
    status_low_battery: ["normal", "low"],
    current_heating_cooling_state: ["off", "heating", "cooling"],
    target_heating_cooling_state: ["off", "heat", "cool", "auto"],
    temperature_display_units: ["celsius", "fahrenheit"],
    programmable_switch_event: ["single press", "double press", "long press"],
    smoke_detected: ["no smoke", "smoke"],
    leak_detected: ["no leak", "leak"],
    carbon_monoxide_detected: ["normal", "abnormal"],
    carbon_dioxide_detected: ["normal", "abnormal"],
    occupancy_detected: ["not occupied", "occupied"],
    status_tampered: ["not tampered", "tampered"],
    status_fault: ["no fault", "fault"],
    service_label_namespace: ["dots", "numerals"],
    lock_current_state: ["unsecured", "secured", "jammed", "unknown"],
    lock_target_state: ["unsecured", "secured"],
    active: ["inactive", "active"],
    in_use: ["not in use", "in use"],
    current_fan_state: ["inactive", "idle", "blowing"],
    target_fan_state: ["manual", "auto"],
    rotation_direction: ["clockwise", "counter-clockwise"],
    swing_mode: ["off", "on"],
    lock_physical_controls: ["unlocked", "locked"],
    air_quality: ["unknown", "excellent", "good", "fair", "inferior", "poor"],
    security_system_current_state: ["stay arm", "away arm", "night arm", "disarmed", "triggered"],
    security_system_target_state: ["stay arm", "away arm", "night arm", "disarm"],
  };

  // Services about the accessory rather than for using it: shown closed and greyed.
  const CONFIG_SERVICES = new Set(["accessory_information", "settings", "service_label", "protocol_information"]);

  function humanize(snake) {
    const text = String(snake || "").replace(/_/g, " ").trim();
    return text ? text[0].toUpperCase() + text.slice(1) : "";
  }

  function charName(type) {
    return CHAR_NAMES[type] || humanize(type);
  }

  function serviceName(service) {
    return service.name || humanize(service.type);
  }

  /** The gateway decides it: a mapping file's `category`, else the primary service's kind. */
  function categoryOf(accessory) {
    return accessory.category || "other";
  }

  function categoryName(category) {
    return CATEGORY_NAMES[category] || humanize(category);
  }

  function isConfigService(service) {
    return service.hidden === true || CONFIG_SERVICES.has(service.type);
  }

  function primaryService(accessory) {
    const services = accessory.services || [];
    return services.find((s) => s.primary) || services.find((s) => !isConfigService(s) && s.type !== "battery_service") || services[0];
  }

  function decimals(step) {
    if (!step || Number.isInteger(step)) return 0;
    const text = String(step);
    const dot = text.indexOf(".");
    return dot < 0 ? 0 : Math.min(4, text.length - dot - 1);
  }

  function unitText(characteristic) {
    if (!characteristic.unit) return "";
    return UNITS[characteristic.unit] || characteristic.unit;
  }

  function withUnit(text, characteristic) {
    const unit = unitText(characteristic);
    if (!unit) return text;
    return unit === "%" || unit === "°" ? `${text}${unit === "%" ? " %" : unit}` : `${text} ${unit}`;
  }

  /** The value as a person reads it: "50 %", "closed", "On". */
  function formatValue(characteristic, value) {
    if (value === null || value === undefined) return "—";
    if (characteristic.format === "bool" || typeof value === "boolean") {
      if (characteristic.type === "on") return value ? "On" : "Off";
      return value ? "Yes" : "No";
    }
    const names = ENUMS[characteristic.type];
    if (typeof value === "number" && characteristic.valid_values && names && names[value] !== undefined) return names[value];
    if (typeof value === "number") {
      const places = decimals(characteristic.step);
      const text = places ? value.toFixed(places) : String(Math.round(value * 10000) / 10000);
      return withUnit(text, characteristic);
    }
    if (typeof value === "string") return value === "" ? "(empty)" : value;
    return JSON.stringify(value);
  }

  function optionLabel(characteristic, value) {
    const names = ENUMS[characteristic.type];
    if (typeof value === "number" && names && names[value] !== undefined) return `${names[value]} (${value})`;
    if (value === "") return "(empty)";
    return String(value);
  }

  function permissionsText(permissions) {
    return (permissions || []).join(" ");
  }

  function rangeText(characteristic) {
    const parts = [];
    if (characteristic.min !== undefined || characteristic.max !== undefined) {
      parts.push(`${characteristic.min ?? "…"}–${characteristic.max ?? "…"}`);
    }
    if (characteristic.step !== undefined) parts.push(`step ${characteristic.step}`);
    if (characteristic.valid_values) {
      parts.push(`values ${characteristic.valid_values.map((v) => (v === "" ? '""' : v)).join(", ")}`);
    }
    return parts.join(" · ");
  }

  // MARK: time

  const clockFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  const dateFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });

  function relative(ms) {
    const seconds = Math.round(ms / 1000);
    const abs = Math.abs(seconds);
    let text;
    if (abs < 10) return seconds >= 0 ? "just now" : "in a moment";
    if (abs < 60) text = `${abs} s`;
    else if (abs < 3600) text = `${Math.round(abs / 60)} min`;
    else if (abs < 86400 * 2) text = `${Math.round(abs / 3600)} h`;
    else text = `${Math.round(abs / 86400)} days`;
    return seconds >= 0 ? `${text} ago` : `in ${text}`;
  }

  function timeText(iso) {
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return String(iso);
    const sameDay = new Date().toDateString() === date.toDateString();
    return `${sameDay ? clockFormat.format(date) : dateFormat.format(date)} (${relative(Date.now() - date.getTime())})`;
  }

  /** A <time> that keeps its "5 min ago" current. */
  function timeEl(iso, attrs = {}) {
    if (!iso) return h("span", attrs, "never");
    return h("time", { ...attrs, class: `reltime ${attrs.class || ""}`.trim(), datetime: iso, title: new Date(iso).toString() }, timeText(iso));
  }

  function refreshTimes() {
    for (const el of document.querySelectorAll("time.reltime")) el.textContent = timeText(el.getAttribute("datetime"));
  }

  // MARK: banner and token

  const banner = $("#banner");

  function showBanner(message, actionText, action) {
    clear(banner);
    if (!message) {
      banner.hidden = true;
      return;
    }
    banner.hidden = false;
    append(banner, [h("span", null, message)]);
    if (actionText) append(banner, [h("button", { type: "button", onclick: action, "data-testid": "banner-action" }, actionText)]);
  }

  const tokenDialog = $("#token-dialog");

  function askForToken(reason) {
    state.needToken = true;
    stopStream();
    setStreamState("offline", "needs token");
    $("#token-reason").textContent = reason || "";
    if (!tokenDialog.open) {
      $("#token-input").value = "";
      if (typeof tokenDialog.showModal === "function") tokenDialog.showModal();
      else tokenDialog.setAttribute("open", "");
    }
    $("#token-input").focus();
  }

  $("#token-form").addEventListener("submit", () => {
    const token = $("#token-input").value.trim();
    state.token = token;
    writeStorage(TOKEN_KEY, token);
    state.needToken = false;
    showBanner(null);
    reloadAll().then((ok) => {
      if (ok) connectStream();
    });
  });

  // MARK: the event stream

  let stream = null;
  let everConnected = false;
  let retryTimer = null;
  let retryDelay = 1000;

  function setStreamState(name, text) {
    const el = $("#stream-state");
    el.dataset.state = name;
    el.textContent = text || name;
    el.title = {
      connected: "Live: values update as they change",
      reconnecting: "The live stream is down; reconnecting",
      connecting: "Opening the live stream",
      offline: "No live stream",
    }[name] || "";
  }

  function stopStream() {
    clearTimeout(retryTimer);
    if (stream) stream.close();
    stream = null;
  }

  function connectStream() {
    stopStream();
    if (state.needToken) return;
    const url = `/api/events${state.token ? `?access_token=${enc(state.token)}` : ""}`;
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
    source.addEventListener("characteristic", (e) => onEvent(onCharacteristicEvent, e));
    source.addEventListener("accessory", (e) => onEvent(onAccessoryEvent, e));
    for (const type of ["home", "room", "zone"]) source.addEventListener(type, () => scheduleReload());
    source.addEventListener("action_set", (e) => onEvent(onActionSetEvent, e));
    source.addEventListener("trigger", (e) => onEvent(onTriggerEvent, e));
  }

  async function probeAndReconnect() {
    try {
      await api("GET", "/api/homes");
      connectStream();
    } catch (error) {
      if (error.status === 401) return; // the token form reconnects
      retryTimer = setTimeout(probeAndReconnect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 15000);
    }
  }

  function onEvent(handler, event) {
    let data;
    try {
      data = JSON.parse(event.data);
    } catch {
      return;
    }
    handler(data);
  }

  function onCharacteristicEvent(event) {
    const found = findCharacteristic(event.accessory, event.service, event.characteristic);
    if (!found) {
      scheduleReload();
      return;
    }
    found.characteristic.value = event.value;
    state.lastSeen.set(event.accessory, event.time);
    const key = `${event.accessory}/${event.service}/${event.characteristic}`;
    state.eventCount.set(key, (state.eventCount.get(key) || 0) + 1);
    clearPending(key);
    updateBindings(key, event.value);
    refreshTile(event.accessory);
    if (state.selected === event.accessory) updateLastSeen();
  }

  function onAccessoryEvent(event) {
    const accessory = state.byId.get(event.id);
    if (!accessory || event.change === "added" || event.change === "removed") {
      scheduleReload();
      return;
    }
    if (event.reachable !== undefined) accessory.reachable = event.reachable;
    if (event.name !== undefined) accessory.name = event.name;
    if (event.room !== undefined) accessory.room = event.room;
    if (event.home !== undefined) accessory.home = event.home;
    if (event.change === "reachability") {
      refreshTile(accessory.id);
      if (state.selected === accessory.id) renderDetail();
    } else {
      renderGroups();
      if (state.selected === accessory.id) renderDetail();
      scheduleReload(); // room lists and counts
    }
  }

  function onActionSetEvent(event) {
    if (event.change === "executed") {
      state.lastResults.set(event.id, { time: event.time, source: event.source, results: event.results || [] });
      const set = state.actionSets.find((s) => s.id === event.id);
      if (set) {
        set.last_executed = event.time;
        renderScenes();
      } else {
        reloadAutomations();
      }
    } else {
      reloadAutomations();
    }
  }

  function onTriggerEvent(event) {
    if (event.change === "fired") state.lastFires.set(event.id, event);
    reloadAutomations();
  }

  // MARK: live values in controls

  function bind(key, update) {
    if (!bindings.has(key)) bindings.set(key, new Set());
    bindings.get(key).add(update);
  }

  function updateBindings(key, value) {
    for (const update of bindings.get(key) || []) update(value);
  }

  function setPending(key, value) {
    clearPending(key);
    // A device confirms a write within 10 s (the gateway's window); without that, show what it has.
    const timer = setTimeout(() => {
      state.pending.delete(key);
      const [a, s, c] = key.split("/");
      const found = findCharacteristic(a, s, c);
      if (found) updateBindings(key, found.characteristic.value);
      markPending(key, false);
    }, 10000);
    state.pending.set(key, { value, timer });
    markPending(key, true);
  }

  function clearPending(key) {
    const pending = state.pending.get(key);
    if (pending) clearTimeout(pending.timer);
    state.pending.delete(key);
    markPending(key, false);
  }

  function markPending(key, on) {
    for (const row of document.querySelectorAll(".char[data-key]")) {
      if (row.dataset.key === key) row.classList.toggle("pending", on);
    }
  }

  async function writeCharacteristic(accessory, service, characteristic, value) {
    const key = `${accessory.id}/${service.id}/${characteristic.type}`;
    setCharError(key, "");
    const seen = state.eventCount.get(key) || 0;
    try {
      await api("PUT", `/api/accessories/${enc(accessory.id)}/${enc(service.id)}/${enc(characteristic.type)}`, { value });
      // Waits for the device to confirm, unless it already has (its event can beat the answer).
      const confirmed = (state.eventCount.get(key) || 0) !== seen || characteristic.value === value;
      if (characteristic.permissions.includes("read") && !confirmed) setPending(key, value);
      return true;
    } catch (error) {
      clearPending(key);
      setCharError(key, error.message);
      updateBindings(key, characteristic.value); // back to what the device has
      return false;
    }
  }

  function setCharError(key, message) {
    for (const el of document.querySelectorAll(".char-error[data-key]")) {
      if (el.dataset.key !== key) continue;
      el.textContent = message;
      el.hidden = !message;
    }
  }

  // MARK: icons (drawn, so that no file or font is fetched)

  const ICONS = {
    lightbulb: "M12 3a6 6 0 0 0-3.5 10.9V16h7v-2.1A6 6 0 0 0 12 3zM9.5 18h5v1.5a1.5 1.5 0 0 1-1.5 1.5h-2a1.5 1.5 0 0 1-1.5-1.5z",
    outlet: "M5 4h14a1 1 0 0 1 1 1v14a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V5a1 1 0 0 1 1-1zm4 5v3m6-3v3m-5 4h4",
    switch: "M7 6h10a6 6 0 0 1 0 12H7A6 6 0 0 1 7 6zm10 3a3 3 0 1 0 0 6 3 3 0 0 0 0-6z",
    sensor: "M10 12a2 2 0 1 0 4 0 2 2 0 1 0-4 0M8.5 8.5a5 5 0 0 0 0 7M15.5 8.5a5 5 0 0 1 0 7M5.6 5.6a9 9 0 0 0 0 12.8M18.4 5.6a9 9 0 0 1 0 12.8",
    thermostat: "M10 4a2 2 0 0 1 4 0v9.3a4 4 0 1 1-4 0zM12 9v6",
    door_lock: "M7 11V8a5 5 0 0 1 10 0v3M6 11h12v9H6zm6 4v2",
    window_covering: "M4 4h16M5 4v10h14V4M5 8h14M5 11h14M12 14v4",
    programmable_switch: "M6 4h12v16H6zm6 4v3m0 3v2",
    garage_door_opener: "M3 10 12 4l9 6v10H3zm4 3h10m-10 3h10",
    fan: "M12 12m-2 0a2 2 0 1 0 4 0 2 2 0 1 0-4 0M12 10c0-4 1-6 4-6 2 0 2 4-4 6m2 2c4 0 6 1 6 4 0 2-4 2-6-4m-2 2c0 4-1 6-4 6-2 0-2-4 4-6m-2-2c-4 0-6-1-6-4 0-2 4-2 6 4",
    security_system: "M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z",
    bridge: "M3 16h18M6 16V9m12 7V9M3 9c4 3 14 3 18 0",
    other: "M5 5h14v14H5z",
  };

  function icon(category) {
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("class", "icon");
    const path = document.createElementNS(ns, "path");
    path.setAttribute("d", ICONS[category] || ICONS.other);
    svg.append(path);
    return svg;
  }

  // MARK: render: everything

  function renderAll() {
    renderHomePicker();
    renderGroups();
    renderDetail();
    renderScenes();
    renderScenePicks();
    renderTriggers();
    renderRooms();
    renderView();
  }

  function renderView() {
    for (const tab of document.querySelectorAll(".tab")) {
      const on = tab.dataset.view === state.view;
      tab.setAttribute("aria-selected", on ? "true" : "false");
      tab.tabIndex = on ? 0 : -1;
    }
    for (const view of document.querySelectorAll(".view")) view.hidden = view.id !== `view-${state.view}`;
    document.body.classList.toggle("detail-open", state.view === "accessories" && !!state.selected);
  }

  function renderHomePicker() {
    const picker = $("#home-picker");
    clear(picker);
    for (const home of state.homes) {
      append(picker, [h("option", { value: home.id, selected: home.id === state.homeId }, home.name + (home.primary ? " (primary)" : ""))]);
    }
    $("#home-picker-label").hidden = state.homes.length < 2;
    const home = currentHome();
    $("#home-name").textContent = state.homes.length < 2 && home ? home.name : "";
  }

  // MARK: render: accessories grouped by room or category

  function groupsOf(accessories) {
    const byName = (a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: "base", numeric: true });
    if (state.groupBy === "room") {
      const home = currentHome();
      const rooms = home ? home.rooms || [] : [];
      const defaultRoom = rooms.find((room) => room.id === (home && home.default_room));
      const others = rooms.filter((room) => room !== defaultRoom).sort(byName);
      const ordered = defaultRoom ? [defaultRoom, ...others] : others;
      const known = new Set(ordered.map((room) => room.id));
      const groups = ordered.map((room) => ({
        key: `room-${room.id}`,
        name: room.name,
        room: room.id,
        accessories: accessories.filter((accessory) => accessory.room === room.id).sort(byName),
      }));
      const loose = accessories.filter((accessory) => !known.has(accessory.room)).sort(byName);
      if (loose.length) groups.push({ key: "room-none", name: "Not in a room", accessories: loose });
      return groups.filter((group) => group.accessories.length > 0); // empty rooms are not shown
    }
    const categories = new Map();
    for (const accessory of accessories) {
      const category = categoryOf(accessory);
      if (!categories.has(category)) categories.set(category, []);
      categories.get(category).push(accessory);
    }
    return [...categories.entries()]
      .map(([category, list]) => ({ key: `category-${category}`, name: categoryName(category), category, accessories: list.sort(byName) }))
      .sort(byName);
  }

  function renderGroups() {
    const container = $("#groups");
    container.dataset.grouping = state.groupBy;
    $("#group-by-room").setAttribute("aria-pressed", state.groupBy === "room" ? "true" : "false");
    $("#group-by-category").setAttribute("aria-pressed", state.groupBy === "category" ? "true" : "false");
    if (!state.loaded) return;
    const accessories = accessoriesOfHome();
    const unreachable = accessories.filter((a) => !a.reachable).length;
    $("#accessory-count").textContent = `${accessories.length} accessories${unreachable ? `, ${unreachable} unreachable` : ""}`;
    clear(container);
    const groups = groupsOf(accessories);
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

  function refreshTile(id) {
    const accessory = state.byId.get(id);
    if (!accessory) return;
    for (const old of document.querySelectorAll(`.tile[data-accessory="${CSS.escape(id)}"]`)) {
      old.replaceWith(tile(accessory));
    }
    const accessories = accessoriesOfHome();
    const unreachable = accessories.filter((a) => !a.reachable).length;
    $("#accessory-count").textContent = `${accessories.length} accessories${unreachable ? `, ${unreachable} unreachable` : ""}`;
  }

  function batteryOf(accessory) {
    let level = null;
    let low = false;
    for (const service of accessory.services || []) {
      for (const c of service.characteristics) {
        if (c.type === "battery_level" && typeof c.value === "number") level = c.value;
        if (c.type === "status_low_battery" && c.value === 1) low = true;
      }
    }
    if (level === null && !low) return null;
    return { level, low: low || (level !== null && level <= 15) };
  }

  const SUMMARY_ORDER = [
    "current_temperature", "current_relative_humidity", "current_ambient_light_level", "contact_sensor_state",
    "motion_detected", "occupancy_detected", "smoke_detected", "leak_detected", "current_position",
    "current_door_state", "lock_current_state", "air_pressure", "programmable_switch_event",
  ];

  /** One line about the accessory's main state: "On · 50 %", "21.6 °C", "closed". */
  function summary(accessory) {
    const service = primaryService(accessory);
    if (!service) return "";
    const chars = service.characteristics;
    const get = (type) => chars.find((c) => c.type === type);
    const on = get("on");
    if (on) {
      if (on.value === null || on.value === undefined) return "—";
      const parts = [on.value ? "On" : "Off"];
      const brightness = get("brightness");
      if (on.value && brightness && typeof brightness.value === "number") parts.push(formatValue(brightness, brightness.value));
      const inUse = get("outlet_in_use");
      if (inUse && inUse.value === true) parts.push("in use");
      return parts.join(" · ");
    }
    if (service.type === "thermostat") {
      const current = get("current_temperature");
      const target = get("target_temperature");
      const parts = [];
      if (current && current.value !== null) parts.push(formatValue(current, current.value));
      if (target && target.value !== null) parts.push(`set to ${formatValue(target, target.value)}`);
      return parts.join(" · ");
    }
    if (service.type === "stateless_programmable_switch" && !chars.some((c) => c.type === "programmable_switch_event" && c.value !== null)) {
      return "No press yet";
    }
    for (const type of SUMMARY_ORDER) {
      const c = get(type);
      if (c && c.value !== null && c.value !== undefined) {
        if (type === "motion_detected") return c.value ? "Motion" : "No motion";
        if (type === "programmable_switch_event") return `Last: ${formatValue(c, c.value)}`;
        if (type === "current_position") return `Open ${formatValue(c, c.value)}`;
        return formatValue(c, c.value);
      }
    }
    const any = chars.find((c) => c.permissions.includes("read") && c.value !== null && c.value !== undefined && c.type !== "service_label_index");
    return any ? `${charName(any.type)}: ${formatValue(any, any.value)}` : "—";
  }

  function quickToggle(accessory) {
    const service = primaryService(accessory);
    const on = service && service.characteristics.find((c) => c.type === "on" && c.format === "bool" && c.permissions.includes("write"));
    if (!on) return null;
    const button = switchButton(on.value === true, `${accessory.name}: power`, `quick-${accessory.id}`);
    button.addEventListener("click", async (event) => {
      event.stopPropagation();
      const next = button.getAttribute("aria-checked") !== "true";
      button.setAttribute("aria-checked", next ? "true" : "false");
      button.disabled = true;
      const tileEl = button.closest(".tile");
      const note = tileEl && tileEl.querySelector(".tile-error");
      if (note) note.hidden = true;
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
        if (note) {
          note.textContent = error.message;
          note.hidden = false;
        }
      } finally {
        button.disabled = false;
      }
    });
    return button;
  }

  /** A name that may wrap after its underscores (Zigbee2MQTT friendly names have no spaces). */
  function breakable(name) {
    const parts = String(name).split(/(?<=[_./-])/);
    return parts.flatMap((part, i) => (i ? [h("wbr"), part] : [part]));
  }

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

  // MARK: render: one accessory's services and characteristics

  function openDetail(id) {
    const previous = state.selected;
    state.selected = id;
    renderDetail();
    for (const el of document.querySelectorAll(".tile")) {
      const on = el.dataset.accessory === id;
      el.classList.toggle("selected", on);
      const button = el.querySelector(".tile-open");
      if (button) button.setAttribute("aria-expanded", on ? "true" : "false");
    }
    renderView();
    if (previous !== id) {
      const pane = $("#detail");
      pane.scrollTop = 0;
      const heading = $("h2", pane);
      if (heading) heading.focus({ preventScroll: true });
    }
  }

  function closeDetail() {
    const id = state.selected;
    state.selected = null;
    renderDetail();
    for (const el of document.querySelectorAll(".tile.selected")) el.classList.remove("selected");
    renderView();
    if (id) {
      const button = document.querySelector(`[data-testid="accessory-${CSS.escape(id)}"]`);
      if (button) button.focus({ preventScroll: true });
    }
  }

  function updateLastSeen() {
    const el = $("#detail [data-testid='last-seen']");
    if (!el || !state.selected) return;
    const seen = state.lastSeen.get(state.selected);
    clear(el);
    append(el, [seen ? timeEl(seen) : "none since homegate started"]);
  }

  let detailShape = null;

  /** What the detail is drawn from, values left out: those reach its controls through `bindings`. */
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
  function renderDetail(force = false) {
    const accessory = state.selected && state.byId.get(state.selected);
    const shape = shapeOf(accessory);
    if (!force && shape === detailShape && accessory) {
      for (const service of accessory.services) {
        for (const c of service.characteristics) {
          const key = `${accessory.id}/${service.id}/${c.type}`;
          if (!state.pending.has(key)) updateBindings(key, c.value);
        }
      }
      updateLastSeen();
      return;
    }
    detailShape = shape;
    const pane = $("#detail");
    bindings.clear();
    clear(pane);
    pane.hidden = false;
    if (!accessory) {
      append(pane, [h("p", { class: "placeholder" }, "Choose an accessory to see its services and characteristics.")]);
      pane.classList.add("empty");
      return;
    }
    pane.classList.remove("empty");
    const home = state.homes.find((x) => x.id === accessory.home) || currentHome();
    const battery = batteryOf(accessory);
    const seen = state.lastSeen.get(accessory.id);
    append(pane, [
      h("div", { class: "detail-head" },
        h("button", { type: "button", class: "back", "data-testid": "detail-close", onclick: closeDetail, "aria-label": "Close" },
          h("span", { class: "narrow" }, "‹ Back"), h("span", { class: "wide" }, "Close ✕")),
        h("h2", { tabindex: "-1", "data-testid": "detail-name" }, accessory.name),
        accessory.reachable
          ? h("span", { class: "badge ok", "data-testid": "detail-reachable" }, "Reachable")
          : h("span", { class: "badge warn", "data-testid": "detail-unreachable" }, "Unreachable")),
      accessory.reachable ? null : h("p", { class: "notice" }, "The device does not answer: its values are the last it reported, and writes are refused until it is back."),
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

  function fact(name, value) {
    if (value === undefined || value === null || value === "") return null;
    return [h("dt", null, name), h("dd", null, value)];
  }

  function accessorySettings(accessory, home) {
    const rooms = home ? home.rooms || [] : [];
    const error = h("p", { class: "form-error", "data-testid": `accessory-error-${accessory.id}`, role: "alert" });
    const select = h("select", { "data-testid": `room-select-${accessory.id}`, id: `room-select-${accessory.id}` },
      rooms.map((room) => h("option", { value: room.id, selected: room.id === accessory.room }, room.name)));
    select.addEventListener("change", async () => {
      error.textContent = "";
      try {
        const moved = await api("PUT", `/api/accessories/${enc(accessory.id)}/room`, { room: select.value, home: home.id });
        accessory.room = moved.room;
        accessory.home = moved.home;
        renderGroups();
        scheduleReload();
      } catch (e) {
        error.textContent = e.message;
        select.value = accessory.room;
      }
    });
    const nameInput = h("input", { value: accessory.name, "data-testid": `rename-${accessory.id}`, id: `rename-${accessory.id}`, maxlength: 64, autocomplete: "off" });
    const rename = async (name) => {
      error.textContent = "";
      try {
        const renamed = await api("PUT", `/api/accessories/${enc(accessory.id)}/name`, { name });
        accessory.name = renamed.name;
        renderGroups();
        renderDetail();
      } catch (e) {
        error.textContent = e.message;
      }
    };
    return h("div", { class: "acc-settings" },
      h("label", { for: `room-select-${accessory.id}` }, "Room"),
      select,
      h("label", { for: `rename-${accessory.id}` }, "Name"),
      h("form", { class: "inline-form", onsubmit: (e) => { e.preventDefault(); rename(nameInput.value.trim()); } },
        nameInput,
        h("button", { type: "submit", "data-testid": `rename-save-${accessory.id}` }, "Rename"),
        h("button", { type: "button", class: "quiet", title: "Use the mapping's name again", onclick: () => rename(null) }, "Reset")),
      error);
  }

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

  function characteristicView(accessory, service, characteristic) {
    const key = `${accessory.id}/${service.id}/${characteristic.type}`;
    const tid = `${accessory.id}-${service.id}-${characteristic.type}`;
    const meta = [
      h("code", null, characteristic.type),
      h("span", null, characteristic.format),
      characteristic.unit ? h("span", null, characteristic.unit) : null,
      h("span", { class: "perms", title: "permissions" }, permissionsText(characteristic.permissions)),
      rangeText(characteristic) ? h("span", null, rangeText(characteristic)) : null,
    ].filter(Boolean);
    const pending = state.pending.has(key);
    return h("li", { class: `char${pending ? " pending" : ""}`, "data-key": key, "data-testid": `row-${tid}` },
      h("div", { class: "char-main" },
        h("span", { class: "char-name", id: `label-${tid}` }, charName(characteristic.type)),
        control(accessory, service, characteristic, tid, key)),
      h("div", { class: "char-meta" }, meta),
      h("p", { class: "char-error", "data-key": key, "data-testid": `error-${tid}`, role: "alert", hidden: true }));
  }

  function switchButton(checked, label, testid) {
    return h("button", {
      type: "button",
      role: "switch",
      class: "switch",
      "aria-checked": checked ? "true" : "false",
      "aria-label": label,
      "data-testid": testid,
    });
  }

  /** The control the metadata calls for: a switch, a slider, a select, an input, or the value. */
  function control(accessory, service, characteristic, tid, key) {
    const c = characteristic;
    const writable = c.permissions.includes("write");
    const readable = c.permissions.includes("read");
    const label = `${accessory.name}: ${charName(c.type)}`;
    const numeric = ["uint8", "uint16", "uint32", "uint64", "int", "float"].includes(c.format);
    const write = (value) => writeCharacteristic(accessory, service, c, value);

    if (!writable) {
      const el = h("output", { class: "value", "data-testid": `char-${tid}`, "aria-labelledby": `label-${tid}` }, formatValue(c, c.value));
      bind(key, (value) => { el.textContent = formatValue(c, value); });
      return el;
    }

    if (c.format === "bool" && readable) {
      const button = switchButton(c.value === true, label, `char-${tid}`);
      const text = h("span", { class: "switch-text", "data-testid": `value-${tid}` }, formatValue(c, c.value));
      const show = (value) => {
        button.setAttribute("aria-checked", value === true ? "true" : "false");
        text.textContent = formatValue(c, value);
      };
      button.addEventListener("click", () => {
        const next = button.getAttribute("aria-checked") !== "true";
        show(next);
        write(next);
      });
      bind(key, show);
      return h("span", { class: "control" }, text, button);
    }

    if (c.format === "bool") {
      // Write-only: an action (hold_position), sent as true.
      const button = h("button", { type: "button", "data-testid": `char-${tid}` }, charName(c.type));
      button.addEventListener("click", () => write(true));
      return button;
    }

    if (Array.isArray(c.valid_values)) {
      const select = h("select", { "data-testid": `char-${tid}`, "aria-label": label },
        readable && c.value !== null && c.value !== undefined ? null : h("option", { value: "", selected: true, disabled: readable }, readable ? "—" : "Choose…"),
        c.valid_values.map((v, i) => h("option", { value: String(i), selected: c.value === v }, optionLabel(c, v))));
      const show = (value) => {
        const index = c.valid_values.findIndex((v) => v === value);
        if (index >= 0) select.value = String(index);
        else if (select.querySelector("option[value='']")) select.value = "";
      };
      select.addEventListener("change", async () => {
        if (select.value === "") return;
        const value = c.valid_values[Number(select.value)];
        const ok = await write(value);
        if (ok && !readable) select.value = ""; // a write-only setting shows no value
      });
      if (readable) bind(key, show);
      else bind(key, () => { select.value = ""; });
      return select;
    }

    if (numeric && typeof c.min === "number" && typeof c.max === "number" && (c.max - c.min) / (c.step || 1) <= 1000) {
      const step = c.step || (c.format === "float" ? "any" : 1);
      const places = decimals(c.step);
      const initial = typeof c.value === "number" ? c.value : c.min;
      const slider = h("input", {
        type: "range", min: c.min, max: c.max, step, value: initial,
        "data-testid": `char-${tid}`, "aria-label": label,
      });
      const output = h("output", { class: "value", "data-testid": `value-${tid}` }, formatValue(c, c.value));
      let dragging = false;
      const show = (value) => {
        output.textContent = formatValue(c, value);
        if (!dragging && typeof value === "number") slider.value = String(value);
      };
      slider.addEventListener("input", () => {
        dragging = true;
        output.textContent = formatValue(c, Number(slider.value));
      });
      slider.addEventListener("change", () => {
        dragging = false;
        let value = Number(slider.value);
        if (places) value = Number(value.toFixed(places));
        write(value);
      });
      bind(key, show);
      return h("span", { class: "control slider" }, slider, output);
    }

    // A number without a usable range, or a string: an input and a Set button.
    const input = h("input", {
      type: numeric ? "number" : "text",
      value: c.value ?? "",
      step: numeric ? c.step || (c.format === "float" ? "any" : 1) : undefined,
      min: numeric ? c.min : undefined,
      max: numeric ? c.max : undefined,
      "data-testid": `char-${tid}`,
      "aria-label": label,
    });
    const form = h("form", { class: "inline-form" }, input, h("button", { type: "submit", "data-testid": `set-${tid}` }, "Set"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const value = numeric ? Number(input.value) : input.value;
      write(value);
    });
    bind(key, (value) => {
      if (document.activeElement !== input) input.value = value ?? "";
    });
    return form;
  }

  // MARK: render: scenes

  function renderScenes() {
    const container = $("#action-sets");
    clear(container);
    if (!state.actionSets.length) {
      append(container, [h("p", { class: "placeholder" }, "No scenes in this home yet: make one below from how things are now.")]);
      return;
    }
    for (const set of state.actionSets) append(container, [sceneCard(set)]);
  }

  function sceneCard(set) {
    const result = state.lastResults.get(set.id);
    const run = h("button", { type: "button", class: "primary", "data-testid": `run-${set.id}` }, "Run");
    run.addEventListener("click", async () => {
      run.disabled = true;
      run.textContent = "Running…";
      let record;
      try {
        const answer = await api("POST", `/api/action-sets/${enc(set.id)}/execute`, {});
        record = { time: new Date().toISOString(), source: "api", results: answer.results || [] };
      } catch (error) {
        record = { time: new Date().toISOString(), source: "api", results: (error.data && error.data.results) || [], error: error.message };
      }
      // The executed event may have come first, with the same results; the answer adds the error line.
      state.lastResults.set(set.id, record);
      if (!record.error || record.results.length) set.last_executed = record.time;
      renderScenes();
    });
    const actions = set.zigbee2mqtt_scene
      ? h("p", { class: "muted-text" }, `Zigbee2MQTT scene ${set.zigbee2mqtt_scene.scene} of ${describeAccessory(set.zigbee2mqtt_scene.accessory)}`)
      : set.actions && set.actions.length
        ? h("ul", { class: "actions" }, set.actions.map((action) => h("li", null,
          h("span", null, describePath(action.characteristic)),
          h("span", { class: "arrow" }, "→"),
          h("strong", null, formatPathValue(action.characteristic, action.value)))))
        : h("p", { class: "muted-text" }, "No actions yet.");
    // A Zigbee2MQTT scene lives in Zigbee2MQTT: it goes when it is removed there.
    const error = h("p", { class: "form-error", "data-testid": `action-set-error-${set.id}`, role: "alert" });
    const remove = set.zigbee2mqtt_scene ? null : confirmButton("Remove", `remove-${set.id}`, async () => {
      error.textContent = "";
      try {
        await api("DELETE", withHome(`/api/action-sets/${enc(set.id)}`));
        await reloadAutomations();
      } catch (e) {
        error.textContent = e.message;
      }
    });
    return h("article", { class: "card", "data-testid": `action-set-${set.id}` },
      h("header", { class: "card-head" }, h("h3", null, set.name), run),
      actions,
      h("div", { class: "card-foot split" },
        h("span", null, "Last run: ", timeEl(set.last_executed, { "data-testid": `last-executed-${set.id}` })),
        remove),
      error,
      result ? resultView(set, result) : null);
  }

  // MARK: render: a new scene

  /** What a scene keeps of an accessory: each characteristic it can be set back to, as it is now. */
  function sceneActions(accessory) {
    const actions = [];
    for (const service of accessory.services || []) {
      if (isConfigService(service)) continue;
      for (const characteristic of service.characteristics || []) {
        const permissions = characteristic.permissions || [];
        if (!permissions.includes("write") || !permissions.includes("read")) continue;
        if (characteristic.value === undefined || characteristic.value === null) continue;
        actions.push({ characteristic: `${accessory.id}/${service.id}/${characteristic.type}`, value: characteristic.value });
      }
    }
    return actions;
  }

  let scenePicksShape = null;

  /** The accessories a new scene can keep, by room; what is ticked survives a redraw. */
  function renderScenePicks() {
    const container = $("#new-scene-accessories");
    const candidates = accessoriesOfHome().filter((accessory) => sceneActions(accessory).length);
    const shape = JSON.stringify(candidates.map((a) => [a.id, a.name, a.room]));
    if (shape === scenePicksShape) return;
    scenePicksShape = shape;
    const ticked = new Set([...container.querySelectorAll("input:checked")].map((input) => input.value));
    clear(container);
    if (!candidates.length) {
      append(container, [h("p", { class: "placeholder" }, "No accessory here can be set.")]);
      return;
    }
    const sorted = [...candidates].sort((a, b) =>
      roomName(a.room).localeCompare(roomName(b.room), undefined, { sensitivity: "base" }) ||
      a.name.localeCompare(b.name, undefined, { sensitivity: "base" }));
    for (const accessory of sorted) {
      append(container, [h("label", { class: "pick" },
        h("input", { type: "checkbox", value: accessory.id, checked: ticked.has(accessory.id), "data-testid": `pick-${accessory.id}` }),
        h("span", null, accessory.name),
        h("span", { class: "muted-text" }, roomName(accessory.room)))]);
    }
  }

  function newSceneForm() {
    const form = $("#add-scene-form");
    const name = $("#new-scene-name");
    const error = $(".form-error", form);
    form.addEventListener("change", () => { error.textContent = ""; });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      error.textContent = "";
      const picked = [...$("#new-scene-accessories").querySelectorAll("input:checked")].map((input) => state.byId.get(input.value)).filter(Boolean);
      // The values at the moment of saving, not of ticking.
      const actions = picked.flatMap(sceneActions);
      if (!actions.length) {
        error.textContent = "Pick at least one accessory: the scene keeps how the ones you pick are now.";
        return;
      }
      try {
        await api("POST", "/api/action-sets", { name: name.value.trim(), home: state.homeId || undefined, actions });
        name.value = "";
        for (const input of $("#new-scene-accessories").querySelectorAll("input:checked")) input.checked = false;
        $("#new-scene").open = false;
        await reloadAutomations();
      } catch (e) {
        error.textContent = e.message;
      }
    });
  }

  function describeAccessory(id) {
    const accessory = state.byId.get(id);
    return accessory ? accessory.name : id;
  }

  function formatPathValue(path, value) {
    const [a, s, c] = String(path || "").split("/");
    const found = findCharacteristic(a, s, c);
    return found ? formatValue(found.characteristic, value) : JSON.stringify(value);
  }

  function resultView(set, result) {
    const failed = result.results.filter((r) => r.status !== "ok").length;
    const by = result.source && result.source.startsWith("trigger:") ? ` by automation ${triggerName(result.source.slice(8))}` : "";
    return h("div", { class: `result${failed || result.error ? " has-error" : ""}`, "data-testid": `result-${set.id}`, role: "status" },
      h("p", { class: "result-head" },
        failed || result.error ? `${failed} of ${result.results.length} failed` : `Done: ${result.results.length} of ${result.results.length} ok`,
        by, " · ", timeEl(result.time)),
      result.error && !failed ? h("p", { class: "error-text" }, result.error) : null,
      h("ul", { class: "results" }, result.results.map((r) => {
        const what = r.zigbee2mqtt_scene ? `scene ${r.zigbee2mqtt_scene.scene} of ${describeAccessory(r.zigbee2mqtt_scene.accessory)}` : describePath(r.characteristic || `${r.accessory}/${r.service}/${r.characteristic}`);
        return h("li", { class: r.status === "ok" ? "ok" : "error" },
          h("span", { class: "mark", "aria-hidden": "true" }, r.status === "ok" ? "✓" : "✗"),
          h("span", null, what),
          r.status === "ok"
            ? (r.value !== undefined ? h("span", { class: "muted-text" }, `→ ${formatPathValue(r.characteristic, r.value)}`) : null)
            : h("span", { class: "error-text" }, ` ${r.error || "failed"}`));
      })));
  }

  function triggerName(id) {
    const trigger = state.triggers.find((t) => t.id === id);
    return trigger ? trigger.name : id;
  }

  // MARK: render: automations

  function renderTriggers() {
    const container = $("#triggers");
    clear(container);
    if (!state.triggers.length) {
      append(container, [h("p", { class: "placeholder" }, "No automations in this home yet: make one below.")]);
      return;
    }
    for (const trigger of state.triggers) append(container, [triggerCard(trigger)]);
  }

  function triggerCard(trigger) {
    const toggle = switchButton(trigger.enabled, `${trigger.name}: enabled`, `trigger-enabled-${trigger.id}`);
    const error = h("p", { class: "form-error", "data-testid": `trigger-error-${trigger.id}`, role: "alert" });
    toggle.addEventListener("click", async () => {
      const next = toggle.getAttribute("aria-checked") !== "true";
      toggle.setAttribute("aria-checked", next ? "true" : "false");
      toggle.disabled = true;
      error.textContent = "";
      try {
        const updated = await api("PUT", `/api/triggers/${enc(trigger.id)}/enabled`, { enabled: next });
        Object.assign(trigger, updated);
        const index = state.triggers.findIndex((t) => t.id === trigger.id);
        if (index >= 0) state.triggers[index] = updated;
        renderTriggers();
      } catch (e) {
        toggle.setAttribute("aria-checked", trigger.enabled ? "true" : "false");
        toggle.disabled = false;
        error.textContent = e.message;
      }
    });
    const fire = state.lastFires.get(trigger.id);
    return h("article", { class: `card${trigger.enabled ? "" : " disabled"}`, "data-testid": `trigger-${trigger.id}` },
      h("header", { class: "card-head" },
        h("h3", null, trigger.name),
        h("span", { class: "control" }, h("span", { class: "switch-text" }, trigger.enabled ? "On" : "Off"), toggle)),
      h("dl", { class: "facts" },
        fact("When", whenText(trigger)),
        trigger.conditions ? fact("Only if", conditionText(trigger.conditions)) : null,
        fact("Runs", trigger.action_sets && trigger.action_sets.length ? trigger.action_sets.map(actionSetName).join(", ") : "no scene"),
        trigger.execute_once ? fact("Once", "turns itself off when it fires") : null,
        fact("Next", trigger.next_fire ? timeEl(trigger.next_fire, { "data-testid": `next-fire-${trigger.id}` }) : h("span", { "data-testid": `next-fire-${trigger.id}` }, trigger.enabled ? "nothing scheduled" : "off")),
        fact("Last fired", timeEl(trigger.last_fired, { "data-testid": `last-fired-${trigger.id}` })),
        trigger.pending && trigger.pending.length ? fact("Waiting", trigger.pending.map((p) => h("span", null, "until ", timeEl(p.deadline)))) : null,
        fire ? fact("Last result", fireText(fire)) : null),
      h("div", { class: "card-foot split" },
        h("span", null),
        confirmButton("Remove", `trigger-remove-${trigger.id}`, async () => {
          error.textContent = "";
          try {
            await api("DELETE", withHome(`/api/triggers/${enc(trigger.id)}`));
            await reloadAutomations();
          } catch (e) {
            error.textContent = e.message;
          }
        })),
      error);
  }

  function actionSetName(id) {
    const set = state.actionSets.find((s) => s.id === id);
    return set ? set.name : id;
  }

  // MARK: render: a new automation

  /** Characteristics whose changes are events: each accessory's, but not its settings'. */
  function eventPaths() {
    const paths = [];
    for (const accessory of accessoriesOfHome()) {
      for (const service of accessory.services || []) {
        if (isConfigService(service)) continue;
        for (const characteristic of service.characteristics || []) {
          if ((characteristic.permissions || []).includes("notify")) paths.push(`${accessory.id}/${service.id}/${characteristic.type}`);
        }
      }
    }
    return paths.map((path) => [path, describePath(path)]).sort((a, b) => a[1].localeCompare(b[1], undefined, { sensitivity: "base" }));
  }

  /** A number for a characteristic, labelled with its unit, starting at its value now. */
  function valueField(id, characteristic) {
    const unit = unitText(characteristic);
    return [
      h("label", { for: id }, `Value${unit ? ` (${unit})` : ""}`),
      h("input", { id, "data-testid": id, type: "number", step: "any", min: characteristic.min, max: characteristic.max,
        value: characteristic.value ?? "" })];
  }

  /** The value part of "when it changes", after the characteristic's kind. */
  function renderTriggerValue() {
    const container = $("#new-trigger-value");
    clear(container);
    const [a, s, c] = $("#new-trigger-characteristic").value.split("/");
    const found = findCharacteristic(a, s, c);
    if (!found) return;
    const characteristic = found.characteristic;
    const numeric = !["bool", "string", "data", "tlv8"].includes(characteristic.format) && !characteristic.valid_values;
    if (numeric) {
      append(container, [
        h("label", { for: "new-trigger-compare" }, "Fires when it"),
        h("select", { id: "new-trigger-compare", "data-testid": "new-trigger-compare" },
          h("option", { value: "min" }, "rises to at least"),
          h("option", { value: "max" }, "falls to at most"),
          h("option", { value: "any" }, "changes at all")),
        ...valueField("new-trigger-number", characteristic)]);
      return;
    }
    const choices = characteristic.format === "bool" ? [true, false] : characteristic.valid_values || null;
    const label = h("label", { for: "new-trigger-target" }, "Fires when it becomes");
    const control = choices
      ? h("select", { id: "new-trigger-target", "data-testid": "new-trigger-target" },
        h("option", { value: "" }, "anything else (any change)"),
        choices.map((value) => h("option", { value: JSON.stringify(value) }, formatValue(characteristic, value))))
      : h("input", { id: "new-trigger-target", "data-testid": "new-trigger-target", placeholder: "any change when empty", autocomplete: "off" });
    append(container, [label, control]);
  }

  /** The value part of "only if an accessory…": a choice for booleans and named values, else a comparison. */
  function renderOnlyValue() {
    const container = $("#new-trigger-only-value");
    clear(container);
    const path = $("#new-trigger-only-characteristic").value;
    const found = path ? findCharacteristic(...path.split("/")) : null;
    if (!found) return;
    const characteristic = found.characteristic;
    const choices = characteristic.format === "bool" ? [true, false] : characteristic.valid_values || null;
    if (choices) {
      append(container, [
        h("label", { for: "new-trigger-only-target" }, "is"),
        h("select", { id: "new-trigger-only-target", "data-testid": "new-trigger-only-target" },
          choices.map((value) => h("option", { value: JSON.stringify(value), selected: value === characteristic.value }, formatValue(characteristic, value))))]);
      return;
    }
    if (["string", "data", "tlv8"].includes(characteristic.format)) {
      append(container, [
        h("label", { for: "new-trigger-only-text" }, "is"),
        h("input", { id: "new-trigger-only-text", "data-testid": "new-trigger-only-text", autocomplete: "off" })]);
      return;
    }
    append(container, [
      h("select", { id: "new-trigger-only-op", "data-testid": "new-trigger-only-op", "aria-label": "Comparison" },
        h("option", { value: "<" }, "is below"),
        h("option", { value: ">" }, "is above"),
        h("option", { value: "=" }, "is exactly")),
      ...valueField("new-trigger-only-number", characteristic)]);
  }

  function showWhen() {
    const when = $("#new-trigger-when").value;
    for (const part of document.querySelectorAll("#add-trigger-form .when-part[data-when]")) part.hidden = !part.dataset.when.split(" ").includes(when);
    $("#new-trigger-day-picks").hidden = $("#new-trigger-days").value !== "custom";
    $("#new-trigger-only-between").hidden = $("#new-trigger-only-time").value !== "between";
  }

  /** Fills the form's lists from the home as it is when the form is opened. */
  function prepareTriggerForm() {
    const select = $("#new-trigger-characteristic");
    const chosen = select.value;
    clear(select);
    const paths = eventPaths();
    for (const [path, text] of paths) append(select, [h("option", { value: path, selected: path === chosen }, text)]);
    renderTriggerValue();
    const only = $("#new-trigger-only-characteristic");
    const onlyChosen = only.value;
    clear(only);
    append(only, [h("option", { value: "" }, "Whatever the accessories are doing")]);
    for (const [path, text] of paths) append(only, [h("option", { value: path, selected: path === onlyChosen }, text)]);
    renderOnlyValue();
    const scenes = $("#new-trigger-scenes");
    const ticked = new Set([...scenes.querySelectorAll("input:checked")].map((input) => input.value));
    clear(scenes);
    if (!state.actionSets.length) append(scenes, [h("p", { class: "placeholder" }, "No scenes yet: make one under Scenes first.")]);
    for (const set of state.actionSets) {
      append(scenes, [h("label", { class: "pick" },
        h("input", { type: "checkbox", value: set.id, checked: ticked.has(set.id), "data-testid": `trigger-pick-${set.id}` }),
        h("span", null, set.name))]);
    }
    showWhen();
  }

  /** The trigger the form describes, as POST /api/triggers takes it; throws the form's complaint. */
  function triggerFromForm() {
    const body = { name: $("#new-trigger-name").value.trim(), home: state.homeId || undefined };
    body.action_sets = [...$("#new-trigger-scenes").querySelectorAll("input:checked")].map((input) => input.value);
    if (!body.action_sets.length) throw new Error("Pick the scenes it runs.");
    const when = $("#new-trigger-when").value;
    const minutes = (id) => {
      const n = Number($(id).value || 0);
      return Number.isFinite(n) && n !== 0 ? `${Math.trunc(n)}m` : undefined;
    };
    if (when === "time") {
      if (!$("#new-trigger-at").value) throw new Error("Give the time of day.");
      let weekdays = $("#new-trigger-days").value;
      if (weekdays === "custom") {
        weekdays = [...$("#new-trigger-day-picks").querySelectorAll("input:checked")].map((input) => input.value);
        if (!weekdays.length) throw new Error("Pick the days it fires.");
      }
      body.timer = { recurrence: { at: $("#new-trigger-at").value.slice(0, 5), weekdays } };
    } else if (when === "sunrise" || when === "sunset") {
      body.events = [{ sun: when, offset: minutes("#new-trigger-offset") }];
    } else {
      const event = { characteristic: $("#new-trigger-characteristic").value };
      if (!event.characteristic) throw new Error("Pick the characteristic.");
      const compare = document.getElementById("new-trigger-compare");
      if (compare) {
        const number = $("#new-trigger-number").value;
        if (compare.value !== "any") {
          if (number === "") throw new Error("Give the value.");
          event.range = { [compare.value]: Number(number) };
        }
      } else {
        const target = document.getElementById("new-trigger-target");
        if (target && target.value !== "") event.value = target.tagName === "SELECT" ? JSON.parse(target.value) : target.value;
      }
      event.for = minutes("#new-trigger-for");
      if (event.for && event.value === undefined && !event.range) throw new Error("\u201cStays so\u201d needs a value to stay at.");
      body.events = [event];
    }
    const conditions = conditionsFromForm();
    if (conditions.length) body.conditions = conditions.length === 1 ? conditions[0] : { all: conditions };
    return body;
  }

  /** The form's "only if" part as the API's conditions (none, one, or all of two). */
  function conditionsFromForm() {
    const conditions = [];
    const time = $("#new-trigger-only-time").value;
    if (time === "day") conditions.push({ time: { after: "sunrise", before: "sunset" } });
    if (time === "night") conditions.push({ time: { after: "sunset", before: "sunrise" } });
    if (time === "between") {
      const after = $("#new-trigger-only-after").value.slice(0, 5);
      const before = $("#new-trigger-only-before").value.slice(0, 5);
      if (!after || !before) throw new Error("Give both times of \u201cbetween two times\u201d.");
      if (after === before) throw new Error("\u201cBetween two times\u201d needs two different times.");
      conditions.push({ time: { after, before } });
    }
    const characteristic = $("#new-trigger-only-characteristic").value;
    if (characteristic) {
      const target = document.getElementById("new-trigger-only-target");
      const text = document.getElementById("new-trigger-only-text");
      const number = document.getElementById("new-trigger-only-number");
      if (target) conditions.push({ characteristic, op: "=", value: JSON.parse(target.value) });
      else if (text) conditions.push({ characteristic, op: "=", value: text.value });
      else if (number) {
        if (number.value === "") throw new Error("Give the value the accessory is compared with.");
        conditions.push({ characteristic, op: $("#new-trigger-only-op").value, value: Number(number.value) });
      }
    }
    return conditions;
  }

  function newTriggerForm() {
    const form = $("#add-trigger-form");
    const error = $(".form-error", form);
    $("#new-trigger").addEventListener("toggle", () => {
      if ($("#new-trigger").open) prepareTriggerForm();
    });
    $("#new-trigger-when").addEventListener("change", showWhen);
    $("#new-trigger-characteristic").addEventListener("change", renderTriggerValue);
    $("#new-trigger-days").addEventListener("change", showWhen);
    $("#new-trigger-only-time").addEventListener("change", showWhen);
    $("#new-trigger-only-characteristic").addEventListener("change", renderOnlyValue);
    form.addEventListener("change", () => { error.textContent = ""; });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      error.textContent = "";
      try {
        await api("POST", "/api/triggers", triggerFromForm());
        $("#new-trigger-name").value = "";
        for (const input of form.querySelectorAll(".scene-picks input:checked, .day-picks input:checked")) input.checked = false;
        $("#new-trigger-days").value = "daily";
        $("#new-trigger-only-time").value = "";
        $("#new-trigger-only-characteristic").value = "";
        renderOnlyValue();
        showWhen();
        $("#new-trigger").open = false;
        await reloadAutomations();
      } catch (e) {
        error.textContent = e.message;
      }
    });
  }

  function eventPath(event) {
    return event.characteristic && event.characteristic.includes("/") ? event.characteristic : `${event.accessory}/${event.service}/${event.characteristic}`;
  }

  function whenText(trigger) {
    if (trigger.timer) {
      const timer = trigger.timer;
      const r = timer.recurrence;
      const zone = timer.time_zone ? ` (${timer.time_zone})` : "";
      if (!r) return `Once, at ${timer.fire_date}${zone}`;
      if (r.every) return `Every ${r.every} ${r.unit}${timer.fire_date ? ` from ${timer.fire_date}` : ""}${zone}`;
      const days = daysText(r.weekdays || "daily");
      return `At ${r.at}, ${days}${zone}`;
    }
    return (trigger.events || []).map((event) => {
      if (event.sun) return `${event.offset ? `${event.offset} ` : ""}${event.sun}`.replace(/^-(\S+) /, "$1 before ").replace(/^\+?(\d\S*) (sun)/, "$1 after $2");
      let text = describePath(eventPath(event));
      if (event.value !== undefined) text += ` ${event.for ? "is" : "becomes"} ${formatPathValue(eventPath(event), event.value)}`;
      else if (event.range) text += ` ${event.for ? "stays in" : "enters"} ${event.range.min ?? "…"}–${event.range.max ?? "…"}`;
      else text += " changes";
      if (event.for) text += ` for ${event.for}`;
      return text;
    }).join("; or ");
  }

  const DAY_NAMES = { mon: "Mon", tue: "Tue", wed: "Wed", thu: "Thu", fri: "Fri", sat: "Sat", sun: "Sun" };

  /** ["mon", …, "fri"] → "Monday to Friday"; the API's names of day sets as they are. */
  function daysText(weekdays) {
    if (!Array.isArray(weekdays)) return { daily: "every day", weekdays: "Monday to Friday", weekends: "Saturday and Sunday" }[weekdays] || String(weekdays);
    const key = [...weekdays].join(",");
    if (weekdays.length === 7) return "every day";
    if (key === "mon,tue,wed,thu,fri") return "Monday to Friday";
    if (key === "sat,sun") return "Saturday and Sunday";
    return `on ${weekdays.map((day) => DAY_NAMES[day] || day).join(", ")}`;
  }

  const CONDITION_WORDS = { "=": "is", "!=": "is not", "<": "is below", "<=": "is at most", ">": "is above", ">=": "is at least" };

  function conditionText(condition) {
    if (!condition || typeof condition !== "object") return String(condition);
    if (condition.all) return condition.all.map(conditionText).join(" and ");
    if (condition.any) return `(${condition.any.map(conditionText).join(" or ")})`;
    if (condition.not) return `not ${conditionText(condition.not)}`;
    if (condition.time) {
      const { after, before } = condition.time;
      if (after === "sunrise" && before === "sunset") return "during the day";
      if (after === "sunset" && before === "sunrise") return "at night";
      return `between ${after || "midnight"} and ${before || "midnight"}`;
    }
    if (condition.weekdays) return daysText(condition.weekdays);
    if (condition.characteristic) {
      const path = eventPath(condition);
      const op = CONDITION_WORDS[condition.op || "="] || condition.op;
      return `${describePath(path)} ${op} ${formatPathValue(path, condition.value)}`;
    }
    return JSON.stringify(condition);
  }

  function fireText(fire) {
    const runs = fire.action_sets || [];
    const failed = runs.reduce((n, run) => n + (run.results || []).filter((r) => r.status !== "ok").length, 0);
    const parts = [failed ? `${failed} action${failed > 1 ? "s" : ""} failed` : `ran ${runs.length} scene${runs.length === 1 ? "" : "s"}`];
    if (fire.disabled) parts.push("then turned itself off");
    return h("span", { class: failed ? "error-text" : "" }, `${parts.join(", ")} · `, timeEl(fire.time));
  }

  // MARK: render: rooms and zones

  /** A button that asks to be pressed again before it acts. */
  function confirmButton(text, testid, action) {
    const button = h("button", { type: "button", class: "danger", "data-testid": testid }, text);
    let armed = null;
    button.addEventListener("click", () => {
      if (!armed) {
        button.textContent = "Sure? Tap again";
        button.classList.add("armed");
        armed = setTimeout(() => {
          armed = null;
          button.textContent = text;
          button.classList.remove("armed");
        }, 4000);
        return;
      }
      clearTimeout(armed);
      armed = null;
      action();
    });
    return button;
  }

  let roomsShape = null;

  /** What the user is typing in the rooms view, to carry over a redraw: testid -> state. */
  function editsIn(container) {
    const edits = new Map();
    for (const input of container.querySelectorAll("input[data-testid]")) {
      const focused = document.activeElement === input;
      if (input.value !== input.defaultValue || focused) {
        edits.set(input.dataset.testid, { value: input.value, focused, start: input.selectionStart, end: input.selectionEnd });
      }
    }
    return edits;
  }

  function restoreEdits(container, edits) {
    for (const [testid, edit] of edits) {
      const input = container.querySelector(`input[data-testid="${CSS.escape(testid)}"]`);
      if (!input) continue;
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

  /** Draws rooms and zones when they changed, keeping what the user is typing. */
  function renderRooms() {
    const home = currentHome();
    const rooms = $("#rooms");
    const zones = $("#zones");
    const homes = $("#homes");
    const shape = JSON.stringify([state.homes, state.homeId, state.accessories.map((a) => [a.id, a.name])]);
    if (shape === roomsShape) return;
    roomsShape = shape;
    const edits = [editsIn(rooms), editsIn(zones), editsIn(homes)];
    clear(rooms);
    clear(zones);
    clear(homes);
    const byName = (a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: "base" });
    for (const each of [...state.homes].sort((a, b) => (b.primary ? 1 : 0) - (a.primary ? 1 : 0) || byName(a, b))) append(homes, [homeRow(each)]);
    restoreEdits(homes, edits[2]);
    if (!home) return;
    const defaultRoom = (home.rooms || []).find((room) => room.id === home.default_room);
    const list = [defaultRoom, ...(home.rooms || []).filter((room) => room !== defaultRoom).sort(byName)].filter(Boolean);
    for (const room of list) append(rooms, [roomRow(home, room)]);
    if (!(home.zones || []).length) append(zones, [h("p", { class: "placeholder" }, "No zones.")]);
    for (const zone of [...(home.zones || [])].sort(byName)) append(zones, [zoneRow(home, zone)]);
    restoreEdits(rooms, edits[0]);
    restoreEdits(zones, edits[1]);
  }

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
        error.textContent = e.message;
      }
    });
    return form;
  }

  function roomRow(home, room) {
    const error = h("p", { class: "form-error", "data-testid": `room-error-${room.id}`, role: "alert" });
    const count = (room.accessories || []).length;
    const isDefault = room.id === home.default_room;
    return h("div", { class: "edit-row", "data-testid": `room-${room.id}` },
      h("div", { class: "edit-main" },
        renameForm("room", { ...room, home: home.id }, `/api/rooms/${enc(room.id)}`, error),
        isDefault
          ? h("span", { class: "muted-text" }, "room for the entire home")
          : confirmButton("Remove", `room-remove-${room.id}`, async () => {
            error.textContent = "";
            try {
              await api("DELETE", `/api/rooms/${enc(room.id)}?home=${enc(home.id)}`);
              scheduleReload(0);
            } catch (e) {
              error.textContent = e.message;
            }
          })),
      h("p", { class: "muted-text" }, count ? `${count} accessor${count === 1 ? "y" : "ies"}: ${(room.accessories || []).map(describeAccessory).join(", ")}` : "empty"),
      error);
  }

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
          error.textContent = e.message;
          chip.disabled = false;
        }
      });
      return chip;
    });
    return h("div", { class: "edit-row", "data-testid": `zone-${zone.id}` },
      h("div", { class: "edit-main" },
        renameForm("zone", { ...zone, home: home.id }, `/api/zones/${enc(zone.id)}`, error),
        confirmButton("Remove", `zone-remove-${zone.id}`, async () => {
          error.textContent = "";
          try {
            await api("DELETE", `/api/zones/${enc(zone.id)}?home=${enc(home.id)}`);
            scheduleReload(0);
          } catch (e) {
            error.textContent = e.message;
          }
        })),
      h("div", { class: "chips", role: "group", "aria-label": `Rooms in ${zone.name}` }, chips),
      error);
  }

  /** A home: rename it, make it the primary one, remove it (not the primary one: the gateway says why). */
  function homeRow(home) {
    const error = h("p", { class: "form-error", "data-testid": `home-error-${home.id}`, role: "alert" });
    const act = async (method, path) => {
      error.textContent = "";
      try {
        await api(method, path);
        scheduleReload(0);
      } catch (e) {
        error.textContent = e.message;
      }
    };
    const rooms = (home.rooms || []).length;
    const accessories = (home.rooms || []).reduce((sum, room) => sum + (room.accessories || []).length, 0);
    const facts = [`${rooms} room${rooms === 1 ? "" : "s"}`, `${accessories} accessor${accessories === 1 ? "y" : "ies"}`];
    if (home.id === state.homeId) facts.push("shown now");
    const primary = h("button", { type: "button", "data-testid": `home-primary-${home.id}` }, "Make primary");
    primary.addEventListener("click", () => act("POST", `/api/homes/${enc(home.id)}/primary`));
    return h("div", { class: "edit-row", "data-testid": `home-${home.id}` },
      h("div", { class: "edit-main" },
        renameForm("home", home, `/api/homes/${enc(home.id)}`, error),
        home.primary
          ? h("span", { class: "muted-text", "data-testid": `home-is-primary-${home.id}` }, "primary home")
          : h("span", { class: "row-actions" }, primary, confirmButton("Remove", `home-remove-${home.id}`, () => act("DELETE", `/api/homes/${enc(home.id)}`)))),
      h("p", { class: "muted-text" }, facts.join(" · "),
        home.primary ? "" : ". Removing it removes its rooms, zones, scenes and automations; its accessories move to the primary home."),
      error);
  }

  /** The home the page shows from now on (kept for the next visit). */
  function chooseHome(id) {
    state.homeId = id;
    writeStorage(HOME_KEY, id);
    state.selected = null;
    state.lastResults.clear();
  }

  /** A name field that adds a room or zone to the home shown, or a home (which is then shown). */
  function addForm(formId, path) {
    const form = $(formId);
    const input = $("input", form);
    const error = $(".form-error", form);
    const isHome = path === "/api/homes";
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      error.textContent = "";
      try {
        const added = await api("POST", path, isHome ? { name: input.value.trim() } : { name: input.value.trim(), home: state.homeId || undefined });
        input.value = "";
        if (isHome && added && added.id) chooseHome(added.id);
        scheduleReload(0);
      } catch (e) {
        error.textContent = e.message;
      }
    });
  }

  // MARK: wiring

  function setView(view) {
    if (view === state.view) return;
    state.view = view;
    history.pushState(null, "", view === "accessories" ? location.pathname + location.search : `#${view}`);
    renderView();
  }

  window.addEventListener("popstate", () => {
    state.view = viewFromHash();
    renderView();
  });

  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => setView(tab.dataset.view));
  $(".tabs").addEventListener("keydown", (event) => {
    if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
    const tabs = [...document.querySelectorAll(".tab")];
    const index = tabs.findIndex((t) => t.dataset.view === state.view);
    const next = tabs[(index + (event.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
    setView(next.dataset.view);
    next.focus();
  });

  function setGrouping(groupBy) {
    state.groupBy = groupBy;
    writeStorage(GROUP_KEY, groupBy);
    renderGroups();
  }

  $("#group-by-room").addEventListener("click", () => setGrouping("room"));
  $("#group-by-category").addEventListener("click", () => setGrouping("category"));

  $("#home-picker").addEventListener("change", (event) => {
    chooseHome(event.target.value);
    renderAll();
    reloadAutomations();
  });

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && state.selected && !tokenDialog.open) closeDetail();
  });

  addForm("#add-room-form", "/api/rooms");
  addForm("#add-zone-form", "/api/zones");
  addForm("#add-home-form", "/api/homes");
  newSceneForm();
  newTriggerForm();

  setInterval(refreshTimes, 15000);

  // The sticky header's height, for the detail pane that sticks below it.
  const chrome = $("#chrome");
  const measure = () => document.documentElement.style.setProperty("--chrome", `${chrome.offsetHeight}px`);
  if (typeof ResizeObserver === "function") new ResizeObserver(measure).observe(chrome);
  measure();

  renderView();
  renderGroups();
  reloadAll().then((ok) => {
    if (ok) connectStream();
  });
})();
