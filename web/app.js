// @ts-check
// homegate's web page: a client of the HTTP API (docs/http-api.md), nothing more. Native ES
// modules, no build step, no inline code (the server's Content-Security-Policy forbids it).
// This file wires the parts together and starts the page.

import { setTokenAsker } from "./api.js";
import { $ } from "./dom.js";
import { connectLive } from "./live.js";
import { reloadAll, reloadAutomations } from "./load.js";
import { chooseGrouping, chooseHome, onChange, state } from "./store.js";
import { renderGroups } from "./views/accessories.js";
import { renderTriggers } from "./views/automations.js";
import { closeDetail, closeDetailIfGone, renderDetail } from "./views/detail.js";
import { loadHomeKit } from "./views/homekit.js";
import { loadMatter } from "./views/matter.js";
import { renderHomePicker, renderView, wireTabs } from "./views/nav.js";
import { wireNewAutomation } from "./views/new-automation.js";
import { renderScenePicks, wireNewScene } from "./views/new-scene.js";
import { renderRooms, wireAddForms } from "./views/rooms.js";
import { renderScenes } from "./views/scenes.js";
import { askForToken, tokenDialogOpen, wireTokenForm } from "./views/token.js";
import { refreshTimes } from "./widgets.js";

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

// Who draws what when the state changes.
onChange("home", renderAll);
onChange("automations", () => {
  renderScenes();
  renderTriggers();
});
onChange("accessories", closeDetailIfGone);
onChange("accessory", renderGroups);
// The HomeKit and Matter bridges are read when their view is shown: nothing else on the page needs them.
onChange("view", () => {
  if (state.view === "homekit") loadBridges();
});
setTokenAsker(askForToken);

wireTabs();
wireTokenForm();
wireAddForms();
wireNewScene();
wireNewAutomation();

/** @param {"room" | "category"} groupBy */
function setGrouping(groupBy) {
  chooseGrouping(groupBy);
  renderGroups();
}

$("#group-by-room", HTMLElement).addEventListener("click", () => setGrouping("room"));
$("#group-by-category", HTMLElement).addEventListener("click", () => setGrouping("category"));

const picker = $("#home-picker", HTMLSelectElement);
picker.addEventListener("change", () => {
  chooseHome(picker.value);
  renderAll();
  reloadAutomations();
});

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && state.selected && !tokenDialogOpen()) closeDetail();
});

setInterval(refreshTimes, 15000);

// The sticky header's height, for the detail pane that sticks below it.
const chrome = $("#chrome", HTMLElement);
const measure = () => document.documentElement.style.setProperty("--chrome", `${chrome.offsetHeight}px`);
if (typeof ResizeObserver === "function") new ResizeObserver(measure).observe(chrome);
measure();

renderView();
renderGroups();
reloadAll().then((ok) => {
  if (ok) connectLive();
  if (state.view === "homekit") loadBridges();
});

function loadBridges() {
  loadHomeKit();
  loadMatter();
}
