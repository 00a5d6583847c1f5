// @ts-check
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ecosystemName, groupedCode, minutesAndSeconds } from "../../web/matter-codes.js";

describe("the Matter view's words", () => {
  test("the manual code in the groups ecosystems print it in", () => {
    assert.equal(groupedCode("34970112332"), "3497-011-2332");
    assert.equal(groupedCode("123"), "123");
  });

  test("a window's time left in minutes and seconds, never below zero", () => {
    assert.equal(minutesAndSeconds(900), "15:00");
    assert.equal(minutesAndSeconds(64.2), "1:05");
    assert.equal(minutesAndSeconds(-3), "0:00");
  });

  test("an ecosystem by its name, or by its vendor id when homegate does not know it", () => {
    const fabric = { index: 1, label: "", vendor_id: 0x6006, vendor_name: "Google Home", node_id: "0000000000000001" };
    assert.equal(ecosystemName(fabric), "Google Home");
    assert.equal(ecosystemName({ ...fabric, vendor_id: 0x1234, vendor_name: null }), "vendor 0x1234");
  });
});
