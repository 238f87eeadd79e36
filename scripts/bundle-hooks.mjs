// The hooks run as a fresh Node process on every edit (SPEC §10): loading their ~20 small ES modules one by one
// costs ~50 ms of a hook's run on a busy machine. This bundles dist/hooks/main.js into dist/hook-bundle/ (one
// file, plus lazily loaded chunks for what only a failure path needs), which src/main.ts runs when it is at least
// as new as dist/hooks/main.js. Runs after tsc and prune-dist; without esbuild (a dev dependency, through tsx)
// nothing is bundled and the hooks run from dist/hooks/ as before.
import { rmSync } from 'node:fs';

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  process.exit(0);
}
rmSync('dist/hook-bundle', { recursive: true, force: true });
await esbuild.build({
  entryPoints: ['dist/hooks/main.js'],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  outdir: 'dist/hook-bundle',
  logLevel: 'warning',
});
