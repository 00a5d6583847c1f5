// @ts-check
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { describePath, eventPath, findPath, formatPathValue, pathOf, withHome } from "../../web/paths.js";
import { byId } from "./fixtures.js";

describe("paths", () => {
  test("a path finds its accessory, service and characteristic", () => {
    const found = findPath(byId(), pathOf("bulb", "light", "brightness"));
    assert.equal(found && found.characteristic.value, 50);
    assert.equal(findPath(byId(), "bulb/light/hue"), null);
    assert.equal(findPath(byId(), ""), null);
    assert.equal(findPath(byId(), undefined), null);
  });

  test("described by names; the service only where the accessory has the characteristic twice", () => {
    assert.equal(describePath(byId(), "bulb/light/brightness"), "Desk lamp · Brightness");
    assert.equal(describePath(byId(), "plug/left/on"), "Power strip · Left · Power");
    assert.equal(describePath(byId(), "gone/a/b"), "gone/a/b");
  });

  test("a value as its characteristic shows it, or as JSON", () => {
    assert.equal(formatPathValue(byId(), "bulb/light/brightness", 30), "30 %");
    assert.equal(formatPathValue(byId(), "gone/a/b", "x"), '"x"');
  });

  test("an event's path, given whole or in three parts", () => {
    assert.equal(eventPath({ characteristic: "a/b/c" }), "a/b/c");
    assert.equal(eventPath({ accessory: "a", service: "b", characteristic: "c" }), "a/b/c");
  });

  test("a home is added to the query when one is chosen", () => {
    assert.equal(withHome("/api/triggers", "my home"), "/api/triggers?home=my%20home");
    assert.equal(withHome("/api/rooms?x=1", "h"), "/api/rooms?x=1&home=h");
    assert.equal(withHome("/api/triggers", null), "/api/triggers");
  });
});
