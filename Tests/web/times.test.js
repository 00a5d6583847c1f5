// @ts-check
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { relative, timeText } from "../../web/times.js";

describe("times", () => {
  test("how long ago, rounded to a unit a person uses", () => {
    assert.equal(relative(3000), "just now");
    assert.equal(relative(-3000), "in a moment");
    assert.equal(relative(42000), "42 s ago");
    assert.equal(relative(5 * 60000), "5 min ago");
    assert.equal(relative(-90 * 60000), "in 2 h");
    assert.equal(relative(47 * 3600000), "47 h ago");
    assert.equal(relative(3 * 86400000), "3 days ago");
  });

  test("a moment with how long ago; what is not a moment, as it is", () => {
    const now = Date.parse("2026-11-23T21:30:00.000Z");
    assert.match(timeText("2026-11-23T21:25:00.000Z", now), /\(5 min ago\)$/);
    assert.match(timeText("2026-11-20T21:30:00.000Z", now), /\(3 days ago\)$/);
    assert.equal(timeText("soon", now), "soon");
  });
});
