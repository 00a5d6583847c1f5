// @ts-check
// A small home for the unit tests: a dimmable bulb, a two-socket plug, a sensor, a button.

/** @typedef {import("../../web/types.js").Accessory} Accessory */
/** @typedef {import("../../web/types.js").Characteristic} Characteristic */

/** @param {string} type @param {Partial<Characteristic>} [more] @returns {Characteristic} */
export function char(type, more = {}) {
  return { type, format: "bool", permissions: ["read", "write", "notify"], value: null, ...more };
}

const info = { id: "info", type: "accessory_information", characteristics: [char("name", { format: "string", permissions: ["read"], value: "x" })] };

/** @returns {Accessory[]} */
export function accessories() {
  return [
    {
      id: "bulb", name: "Desk lamp", category: "lightbulb", reachable: true, home: "h1", room: "office",
      services: [info, { id: "light", type: "lightbulb", primary: true, characteristics: [
        char("on", { value: true }),
        char("brightness", { format: "uint8", unit: "percentage", min: 0, max: 100, step: 1, value: 50 }),
      ] }],
    },
    {
      id: "plug", name: "Power strip", category: "outlet", reachable: false, home: "h1",
      services: [
        { id: "left", type: "outlet", name: "Left", characteristics: [char("on", { value: false })] },
        { id: "right", type: "outlet", name: "Right", characteristics: [char("on", { value: true })] },
      ],
    },
    {
      id: "sensor", name: "Hall sensor", category: "sensor", reachable: true, home: "h1", room: "hall",
      services: [
        { id: "temperature", type: "temperature_sensor", characteristics: [
          char("current_temperature", { format: "float", unit: "celsius", step: 0.1, permissions: ["read", "notify"], value: 21.56 }),
        ] },
        { id: "battery", type: "battery_service", characteristics: [
          char("battery_level", { format: "uint8", unit: "percentage", permissions: ["read", "notify"], value: 12 }),
        ] },
      ],
    },
    {
      id: "button", name: "Button_2", category: "programmable_switch", reachable: true, home: "h1", room: "hall",
      services: [{ id: "switch", type: "stateless_programmable_switch", characteristics: [
        char("programmable_switch_event", { format: "uint8", permissions: ["read", "notify"], valid_values: [0, 1, 2], value: null }),
      ] }],
    },
  ];
}

/** @param {Accessory[]} list */
export function byId(list = accessories()) {
  return new Map(list.map((a) => [a.id, a]));
}
