// Preload (`--import`) that records what a process loads: every module URL its ESM loader resolves (tsx's
// hooks included: source files come out as src/…ts) and Node's own list of built-in modules it compiled
// (process.moduleLoadList, where global fetch shows up as internal/deps/undici/undici), and the CommonJS
// files require() loaded (fastify's own dependencies, which no ESM hook sees). At exit all three are written
// as JSON to $COORD_TEST_LOADS. The "does not load X" tests read it.
import { writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const out = process.env.COORD_TEST_LOADS;
if (out) {
  const urls = new Set();
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (url) => urls.add(url));
  port1.unref();
  const hooks = `let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  port.postMessage(r.url);
  return r;
}`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { port: port2 }, transferList: [port2] });
  process.on('exit', () => {
    const cjs = Object.keys(createRequire(import.meta.url).cache);
    writeFileSync(out, JSON.stringify({ modules: [...urls], builtins: process.moduleLoadList, cjs }));
  });
}
