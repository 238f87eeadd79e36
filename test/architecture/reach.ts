/** What an entry point reaches through the imports that load at once (the hook-weight and mcp-weight tests). */
import { dirname, join, relative, resolve } from 'node:path';
import { type ImportForm, type ImportRef, readFiles, tsFiles } from './source-reader.js';

export const SRC = new URL('../../src/', import.meta.url).pathname;
/** Files that pull in zod, commander or every operation (api/routes.ts is route data: it names operations). */
export const HEAVY = [
  'src/core/schemas.ts',
  'src/core/output-schemas.ts',
  'src/core/operations.ts',
  'src/cli/program.ts',
];

let parsed: Map<string, { imports: ImportRef[] }> | undefined;
/** Every file of src/, parsed once per test process. */
const readings = () => {
  parsed ??= readFiles(tsFiles(SRC));
  return parsed;
};

/** Which imports a reach follows: by default every one but a dynamic `import()`. */
export type Follow = (form: ImportForm) => boolean;
const EAGER: Follow = (form) => form !== 'dynamic';
/**
 * The module graph proper: import and export declarations, which load with the module — not a `require` (often
 * inside a function, loaded only when it runs) nor a dynamic `import()`.
 */
export const DECLARED: Follow = (form) => form === 'static' || form === 'side-effect' || form === 're-export';
/** Everything a file may ever load. */
export const EVERY: Follow = () => true;

/** What `file` loads as soon as it is loaded: every import but a dynamic `import()` (`import type` loads nothing). */
export const eagerImportsOf = (file: string, follow: Follow = EAGER): string[] =>
  (readings().get(file)?.imports ?? []).filter((i) => follow(i.form)).map((i) => i.spec);

/** Every file and package reachable from `entry` through the imports `follow` takes (by default, those that load at once). */
export function reach(entry: string, follow: Follow = EAGER): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const spec of eagerImportsOf(file, follow)) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
      else packages.add(spec);
    }
  };
  visit(entry);
  return { files: [...files].map((f) => relative(join(SRC, '..'), f)), packages: [...packages] };
}
