// @ts-check
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { batteryOf, groupsOf, notifyingPaths, primaryService, sceneActions, summary } from "../../web/accessory.js";
import { accessories, char } from "./fixtures.js";

/** @param {string} id */
const one = (id) => {
  const found = accessories().find((a) => a.id === id);
  if (!found) throw new Error(id);
  return found;
};

/** @type {import("../../web/types.js").Home} */
const home = {
  id: "h1", name: "Home", primary: true, default_room: "entire",
  rooms: [{ id: "office", name: "Office" }, { id: "entire", name: "Entire home" }, { id: "hall", name: "hall" }, { id: "attic", name: "Attic" }],
};

describe("accessories", () => {
  test("the main service: the primary one, else the first that is for using it", () => {
    assert.equal(primaryService(one("bulb"))?.id, "light");
    assert.equal(primaryService(one("sensor"))?.id, "temperature");
  });

  test("battery: its level, low at 15 % or less", () => {
    assert.deepEqual(batteryOf(one("sensor")), { level: 12, low: true });
    assert.equal(batteryOf(one("bulb")), null);
  });

  test("one line about the main state", () => {
    assert.equal(summary(one("bulb")), "On · 50 %");
    assert.equal(summary(one("plug")), "Off");
    assert.equal(summary(one("sensor")), "21.6 °C");
    assert.equal(summary(one("button")), "No press yet");
    const pressed = one("button");
    pressed.services[0].characteristics[0].value = 2;
    assert.equal(summary(pressed), "Last: long press");
    const motion = { ...one("sensor"), services: [{ id: "m", type: "motion_sensor", characteristics: [char("motion_detected", { permissions: ["read"], value: true })] }] };
    assert.equal(summary(motion), "Motion");
  });

  test("a scene keeps what can be set back: readable and writable, with a value, not settings", () => {
    assert.deepEqual(sceneActions(one("bulb")), [
      { characteristic: "bulb/light/on", value: true },
      { characteristic: "bulb/light/brightness", value: 50 },
    ]);
    assert.deepEqual(sceneActions(one("sensor")), []);
  });

  test("the characteristics that fire events", () => {
    assert.deepEqual(notifyingPaths([one("bulb"), one("sensor")]), [
      "bulb/light/on", "bulb/light/brightness", "sensor/temperature/current_temperature", "sensor/battery/battery_level",
    ]);
  });

  test("by room: the entire home's first, the rest by name, empty rooms left out, the unplaced last", () => {
    const groups = groupsOf(accessories(), "room", home);
    assert.deepEqual(groups.map((g) => [g.key, g.accessories.map((a) => a.id)]), [
      ["room-hall", ["button", "sensor"]],
      ["room-office", ["bulb"]],
      ["room-none", ["plug"]],
    ]);
    const placed = accessories().map((a) => ({ ...a, room: "entire" }));
    assert.deepEqual(groupsOf(placed, "room", home).map((g) => g.name), ["Entire home"]);
  });

  test("by category, named and sorted", () => {
    assert.deepEqual(groupsOf(accessories(), "category", home).map((g) => g.name), ["Buttons", "Lights", "Outlets", "Sensors"]);
  });
});
