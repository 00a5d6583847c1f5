// The parts of zigbee-herdsman the converters' definitions use, without the adapters (serial ports).
export {getTimeClusterAttributes} from "./utils/timeService";
export * as ZSpec from "./zspec";
export * as Zcl from "./zspec/zcl";
export * as Zdo from "./zspec/zdo";
export class Controller {}
