// @ts-check
// The JSON the page reads and sends, as web/openapi.yaml describes it: types only, nothing runs.
// The browser never loads this file; the modules name its types in JSDoc (`import("./types.js")`).

/**
 * A characteristic's value; null when none is known yet.
 * @typedef {boolean | number | string | null} Value
 */

/**
 * @typedef {object} Characteristic
 * @property {string} type
 * @property {string} format `bool`, `uint8` … `float`, `string`, `tlv8`, `data`
 * @property {string[]} permissions `read`, `write`, `notify`
 * @property {Value} [value]
 * @property {string} [unit]
 * @property {number} [min]
 * @property {number} [max]
 * @property {number} [step]
 * @property {Value[]} [valid_values]
 */

/**
 * @typedef {object} Service
 * @property {string} id
 * @property {string} type
 * @property {string} [name]
 * @property {boolean} [primary]
 * @property {boolean} [hidden]
 * @property {Characteristic[]} characteristics
 */

/**
 * @typedef {object} Accessory
 * @property {string} id
 * @property {string} name
 * @property {string} category
 * @property {boolean} reachable
 * @property {string} [unreachable_reason] only while not reachable: why
 * @property {string} [manufacturer]
 * @property {string} [model]
 * @property {string} [firmware]
 * @property {string} [bridge]
 * @property {string | null} [home]
 * @property {string | null} [room]
 * @property {string} [last_seen]
 * @property {Service[]} services
 */

/** @typedef {{id: string, name: string, home: string | null, room: string | null}} Placement An accessory's name and place, as a rename or a move answers. */

/** @typedef {{id: string, name: string, home?: string, accessories?: string[]}} Room */
/** @typedef {{id: string, name: string, home?: string, rooms?: string[]}} Zone */

/**
 * @typedef {object} Home
 * @property {string} id
 * @property {string} name
 * @property {boolean} [primary]
 * @property {string} [default_room]
 * @property {Room[]} rooms
 * @property {Zone[]} [zones]
 */

/** @typedef {{accessory: string, scene: number}} SceneRecall A Zigbee2MQTT scene the devices keep. */

/** @typedef {{characteristic: string, value: Value}} Action */

/**
 * @typedef {object} ActionSet
 * @property {string} id
 * @property {string} name
 * @property {string} [home]
 * @property {Action[]} [actions]
 * @property {string | null} [last_executed]
 * @property {SceneRecall} [zigbee2mqtt_scene]
 */

/**
 * The result of one action (or of a Zigbee2MQTT scene's recall).
 * @typedef {object} ActionResult
 * @property {string} status `ok` or `error`
 * @property {string} [characteristic]
 * @property {string} [accessory]
 * @property {string} [service]
 * @property {Value} [value]
 * @property {string} [error]
 * @property {SceneRecall} [zigbee2mqtt_scene]
 */

/**
 * A run of an action set as the page last saw it.
 * @typedef {object} RunRecord
 * @property {string} time
 * @property {string} [source] `api`, `trigger:<id>`, …
 * @property {ActionResult[]} results
 * @property {string} [error]
 */

/** @typedef {"daily" | "weekdays" | "weekends" | string | string[]} Weekdays */

/**
 * @typedef {object} Timer
 * @property {string} [fire_date]
 * @property {string} [time_zone]
 * @property {{at?: string, weekdays?: Weekdays, every?: number, unit?: string}} [recurrence]
 */

/**
 * What fires a trigger: a characteristic's change, or the sun.
 * @typedef {object} TriggerEvent
 * @property {string} [characteristic] a path, or the type beside `accessory` and `service`
 * @property {string} [accessory]
 * @property {string} [service]
 * @property {Value} [value]
 * @property {{min?: number, max?: number}} [range]
 * @property {string} [for]
 * @property {string} [sun] `sunrise` or `sunset`
 * @property {string} [offset]
 */

/**
 * What must hold when a trigger fires: one shape per object.
 * @typedef {object} Condition
 * @property {Condition[]} [all]
 * @property {Condition[]} [any]
 * @property {Condition} [not]
 * @property {{after?: string, before?: string}} [time]
 * @property {Weekdays} [weekdays]
 * @property {string} [characteristic]
 * @property {string} [accessory]
 * @property {string} [service]
 * @property {string} [op]
 * @property {Value} [value]
 */

/**
 * @typedef {object} Trigger
 * @property {string} id
 * @property {string} name
 * @property {boolean} enabled
 * @property {string[]} [action_sets]
 * @property {Timer} [timer]
 * @property {TriggerEvent[]} [events]
 * @property {Condition} [conditions]
 * @property {boolean} [execute_once]
 * @property {string | null} [last_fired]
 * @property {string | null} [next_fire]
 * @property {{deadline: string}[]} [pending]
 */

/**
 * A trigger as POST /api/triggers takes it.
 * @typedef {object} NewTrigger
 * @property {string} name
 * @property {string} [home]
 * @property {string[]} [action_sets]
 * @property {Timer} [timer]
 * @property {TriggerEvent[]} [events]
 * @property {Condition} [conditions]
 */

// MARK: the event stream (/api/events)

/** @typedef {{accessory: string, service: string, characteristic: string, value: Value, time: string}} CharacteristicChange */

/**
 * @typedef {object} AccessoryChange
 * @property {string} id
 * @property {string} change `added`, `removed`, `reachability`, `renamed`, …
 * @property {boolean} [reachable]
 * @property {string} [unreachable_reason]
 * @property {string} [name]
 * @property {string | null} [room]
 * @property {string | null} [home]
 */

/** @typedef {{id: string, change: string, time: string, source?: string, results?: ActionResult[]}} ActionSetChange */

/**
 * @typedef {object} TriggerChange
 * @property {string} id
 * @property {string} change `fired`, `added`, …
 * @property {string} time
 * @property {{results?: ActionResult[]}[]} [action_sets] what each scene run did (on `fired`)
 * @property {boolean} [disabled] it turned itself off (on `fired`)
 */

export {};

/**
 * A controller paired with a HomeKit bridge.
 * @typedef {object} HomeKitController
 * @property {string} id its pairing id
 * @property {boolean} admin whether it may add and remove pairings
 */

/**
 * One HomeKit bridge (`GET /api/homekit`).
 * @typedef {object} HomeKitBridge
 * @property {number} number 1 for the first
 * @property {string} name
 * @property {number} port
 * @property {string} device_id
 * @property {string} setup_code `XXX-XX-XXX`
 * @property {string} setup_uri `X-HM://…`
 * @property {number} configuration_number
 * @property {number} accessories
 * @property {boolean} paired
 * @property {{state: "advertised" | "not_advertised" | "starting", detail: string}} advertisement
 * @property {HomeKitController[]} controllers
 */

/**
 * @typedef {object} HomeKitState
 * @property {boolean} enabled
 * @property {HomeKitBridge[]} bridges
 */

/**
 * An ecosystem the Matter bridge belongs to.
 * @typedef {object} MatterFabric
 * @property {number} index the fabric's index on the bridge
 * @property {string} label
 * @property {number} vendor_id
 * @property {string | null} vendor_name "Google Home", … for a known vendor id
 * @property {string} node_id the bridge's node id there, 16 hex digits
 */

/**
 * The Matter bridge (`GET /api/matter`).
 * @typedef {object} MatterState
 * @property {boolean} enabled
 * @property {boolean} serving
 * @property {number | null} [port]
 * @property {string | null} [manual_code] the code that commissions it now, if any
 * @property {string | null} [qr_payload]
 * @property {{discriminator: number, seconds_left: number, opened_by: "homegate" | "controller", manual_code: string | null, qr_payload: string | null} | null} [window]
 * @property {MatterFabric[]} fabrics
 */
