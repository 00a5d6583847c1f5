// @ts-check
// The top bar: the home picker, the tabs, and which section shows (kept in the address).

import { $, $$, append, clear, h } from "../dom.js";
import { changed, currentHome, state, viewFromHash } from "../store.js";

export function renderView() {
  for (const tab of $$(".tab", HTMLElement)) {
    const on = tab.dataset.view === state.view;
    tab.setAttribute("aria-selected", on ? "true" : "false");
    tab.tabIndex = on ? 0 : -1;
  }
  for (const view of $$(".view", HTMLElement)) view.hidden = view.id !== `view-${state.view}`;
  document.body.classList.toggle("detail-open", state.view === "accessories" && !!state.selected);
}

/** @param {string} view */
function setView(view) {
  if (view === state.view) return;
  state.view = view;
  history.pushState(null, "", view === "accessories" ? location.pathname + location.search : `#${view}`);
  renderView();
  changed("view");
}

export function renderHomePicker() {
  const picker = $("#home-picker", HTMLSelectElement);
  clear(picker);
  for (const home of state.homes) {
    append(picker, [h("option", { value: home.id, selected: home.id === state.homeId }, home.name + (home.primary ? " (primary)" : ""))]);
  }
  $("#home-picker-label", HTMLElement).hidden = state.homes.length < 2;
  const home = currentHome();
  $("#home-name", HTMLElement).textContent = state.homes.length < 2 && home ? home.name : "";
}

/** Tabs by click and by arrow keys; the browser's back and forward between sections. */
export function wireTabs() {
  window.addEventListener("popstate", () => {
    state.view = viewFromHash();
    renderView();
    changed("view");
  });
  const tabs = $$(".tab", HTMLElement);
  for (const tab of tabs) tab.addEventListener("click", () => setView(tab.dataset.view || ""));
  $(".tabs", HTMLElement).addEventListener("keydown", (event) => {
    if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
    const index = tabs.findIndex((t) => t.dataset.view === state.view);
    const next = tabs[(index + (event.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
    setView(next.dataset.view || "");
    next.focus();
  });
}
