/** What an entry point reaches through static value imports (the hook-weight and mcp-weight tests). */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Static value imports (`import type` loads nothing); the same reading as imports.test.ts. */
export const importsOf = (source: string): string[] =>
  [...source.matchAll(/^\s*(?:import|export)(?!\s+type\b)[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1] ?? '');

export const SRC = new URL('../../src/', import.meta.url).pathname;
/** Files that pull in zod, commander or every operation. */
export const HEAVY = ['src/core/schemas.ts', 'src/api/routes.ts', 'src/core/operations.ts', 'src/cli/program.ts'];

/** Every file and package reachable from `entry` through static value imports. */
export function reach(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
      else packages.add(spec);
    }
  };
  visit(entry);
  return { files: [...files].map((f) => relative(join(SRC, '..'), f)), packages: [...packages] };
}
