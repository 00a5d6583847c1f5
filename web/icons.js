// @ts-check
// A category's icon, drawn, so that no file or font is fetched.

/** @type {Record<string, string>} */
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

/** @param {string} category */
export function icon(category) {
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
