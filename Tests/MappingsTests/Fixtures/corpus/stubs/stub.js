// stub: a module the corpus dump never calls
const handler = {get: (t, k) => k === "__esModule" ? false : (k === "default" ? stub : stub), apply: () => stub, construct: () => stub};
const stub = new Proxy(function () {}, handler);
module.exports = stub;
