// The hooks run as a fresh Node process on every edit (SPEC §10): loading their ~20 small ES modules one by one
// costs ~50 ms of a hook's run on a busy machine, and even a handful of chunks (esbuild's code splitting) costs
// ~6 ms more than one file. This bundles dist/hooks/main.js into one file, dist/hook-bundle/main.cjs, which
// src/main.ts runs when it is at least as new as dist/hooks/main.js. The events other than pre-edit stay lazy
// inside it (esbuild runs a dynamically imported module's code only when the import runs), and so do its
// modules; still, the hooks import only light Node built-ins at the top of a module (fs, path, module, net) and
// require the rest where they use it — checked below, and in test/architecture/hook-weight.test.ts from the
// sources (the ES module form of this bundle hoists every import to the file's top). The operations (zod, for the messages'
// fallback) stay a separate import of dist/core/operations.js. Runs after tsc and prune-dist; without esbuild
// (a dev dependency, through tsx) nothing is bundled and the hooks run from dist/hooks/ as before.
import { readFileSync, rmSync } from 'node:fs';

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  process.exit(0);
}
rmSync('dist/hook-bundle', { recursive: true, force: true });
rmSync('dist/mcp-bundle', { recursive: true, force: true });
/**
 * One entry of dist/ into one CommonJS file: src/main.ts requires it, so a hook (or the relay) reads and compiles
 * one file synchronously instead of through the ES module loader's asynchronous steps (~4–7 ms of a hook's run
 * here). Every module of it is initialised when first used; import.meta.url (createRequire's anchor) becomes the
 * bundle's own URL.
 */
const bundleOne = (entry, outfile, more = {}) =>
  esbuild.build({
    entryPoints: [entry],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'warning',
    define: { 'import.meta.url': '__bundleUrl' },
    banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
    ...more,
  });
await bundleOne('dist/hooks/main.js', 'dist/hook-bundle/main.cjs', {
  plugins: [
    {
      name: 'operations-apart',
      setup(build) {
        build.onResolve({ filter: /\/core\/operations\.js$/ }, () => ({
          path: '../core/operations.js',
          external: true,
        }));
      },
    },
  ],
});

// What the bundle loads, wherever: its modules' own imports (now `require("…")`); a module's createRequire(…)(…)
// in a function is the deliberate lazy form and is not counted.
const LIGHT = new Set(['node:fs', 'node:path', 'node:module', 'node:net', 'node:url']);
const bundle = readFileSync('dist/hook-bundle/main.cjs', 'utf8');
const loaded = [...bundle.matchAll(/(?<![\w.)])require\("([^"]+)"\)/g)].map((m) => m[1]);
const heavy = [...new Set(loaded.filter((spec) => !LIGHT.has(spec)))];
if (heavy.length > 0) {
  rmSync('dist/hook-bundle', { recursive: true, force: true });
  console.error(
    `bundle-hooks: the hook bundle would load ${heavy.join(', ')} on every edit — require it where it is used`,
  );
  process.exit(1);
}

// `coord mcp` (the relay an agent's client starts and waits for before its first model request, SPEC §18 "coord
// run"): the same one-file CommonJS form, dist/mcp-bundle/main.cjs, run by src/main.ts and bin/coord-hook.cjs
// when at least as new as dist/cli/mcp-main.js: ~35 ms less to `initialize` answered here than its ~60 ES
// modules (the lazily imported help path, commander included, stays lazy inside it).
await bundleOne('dist/cli/mcp-main.js', 'dist/mcp-bundle/main.cjs');
