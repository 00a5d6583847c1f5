// @ts-check
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { categoryName, charName, countText, decimals, formatValue, humanize, optionLabel, rangeText, unitText } from "../../web/words.js";
import { char } from "./fixtures.js";

describe("words", () => {
  test("names: known ones by the table, others from their snake_case", () => {
    assert.equal(humanize("current_door_state"), "Current door state");
    assert.equal(humanize(undefined), "");
    assert.equal(charName("on"), "Power");
    assert.equal(charName("target_position"), "Target position");
    assert.equal(categoryName("door_lock"), "Locks");
    assert.equal(categoryName("air_purifier"), "Air purifier");
  });

  test("decimals follow the step, at most four", () => {
    assert.equal(decimals(undefined), 0);
    assert.equal(decimals(1), 0);
    assert.equal(decimals(0.5), 1);
    assert.equal(decimals(0.01), 2);
    assert.equal(decimals(0.0000001), 0); // "1e-7": no dot
    assert.equal(decimals(0.123456), 4);
  });

  test("booleans: On/Off for power, Yes/No otherwise", () => {
    assert.equal(formatValue(char("on"), true), "On");
    assert.equal(formatValue(char("on"), false), "Off");
    assert.equal(formatValue(char("motion_detected"), true), "Yes");
    assert.equal(formatValue(char("on"), null), "—");
  });

  test("numbers with their unit and the step's places", () => {
    const brightness = char("brightness", { format: "uint8", unit: "percentage" });
    assert.equal(formatValue(brightness, 50), "50 %");
    assert.equal(formatValue(char("current_temperature", { format: "float", unit: "celsius", step: 0.1 }), 21.56), "21.6 °C");
    assert.equal(formatValue(char("hue", { format: "float", unit: "arcdegrees" }), 120), "120°");
    assert.equal(formatValue(char("air_pressure", { format: "float", unit: "hPa" }), 1013.123456), "1013.1235 hPa");
    assert.equal(unitText(char("x", { unit: "lux" })), "lx");
  });

  test("enumerated values by their meaning", () => {
    const door = char("current_door_state", { format: "uint8", valid_values: [0, 1, 2, 3, 4] });
    assert.equal(formatValue(door, 1), "closed");
    assert.equal(optionLabel(door, 1), "closed (1)");
    assert.equal(optionLabel(char("mode", { format: "string" }), ""), "(empty)");
  });

  test("strings as they are, an empty one said so", () => {
    assert.equal(formatValue(char("name", { format: "string" }), "Desk"), "Desk");
    assert.equal(formatValue(char("name", { format: "string" }), ""), "(empty)");
  });

  test("a characteristic's range, step and values in one line", () => {
    assert.equal(rangeText(char("brightness", { min: 0, max: 100, step: 1 })), "0–100 · step 1");
    assert.equal(rangeText(char("x", { max: 5 })), "…–5");
    assert.equal(rangeText(char("mode", { valid_values: ["", "eco"] })), 'values "", eco');
  });

  test("the accessory count says how many are unreachable", () => {
    assert.equal(countText([{ reachable: true }, { reachable: false }]), "2 accessories, 1 unreachable");
    assert.equal(countText([]), "0 accessories");
  });
});
