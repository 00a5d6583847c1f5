// Dumps every definition of zigbee-herdsman-converters as Zigbee2MQTT would publish it in
// bridge/devices (vendor, model, description, exposes), for make-corpus.py. Exposes given by a
// function are asked for with a dummy device, as Zigbee2MQTT's own docs generator does.
//
// Needs node and esbuild (Debian: apt-get install nodejs esbuild), the converters' and zigbee-herdsman's
// sources side by side, and stubs for the modules the definitions never call (see README.md):
//   esbuild dump-definitions.ts --bundle --platform=node --outfile=dump.js \
//       --alias:zigbee-herdsman-converters=$PWD/zhc/src
//   node dump.js > defs.json
import definitions from "./zhc/src/devices/index";
import {prepareDefinition} from "./zhc/src/index";

const out: unknown[] = [];
let failed = 0;
for (const raw of definitions) {
    try {
        const d = prepareDefinition(raw);
        const exposes = typeof d.exposes === "function" ? d.exposes({isDummyDevice: true} as never, {}) : d.exposes;
        out.push({vendor: d.vendor, model: d.model, description: d.description, exposes: JSON.parse(JSON.stringify(exposes))});
    } catch (e) {
        failed += 1;
        process.stderr.write(`${(raw as {model?: string}).model}: ${(e as Error).message}\n`);
    }
}
process.stderr.write(`${out.length} definitions, ${failed} failed\n`);
process.stdout.write(JSON.stringify(out));
