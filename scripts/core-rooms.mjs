#!/usr/bin/env node
/**
 * Core in rooms (issue 35 item 2): moves each file of src/core/ into its feature's folder and rewrites every
 * path that names it. Replayable and idempotent: run it on any main (`node scripts/core-rooms.mjs`), run it
 * twice, run it after a branch added new imports of the old paths — each time it moves what is still at its old
 * place and fixes what still points there, and changes nothing else.
 *
 * 1. `git mv src/core/<old> src/core/<new>` for each row of MOVES whose old file exists.
 * 2. In every code file under src/, test/, bench/, scripts/: every relative string ('./x.js', '../../src/core/x.ts')
 *    that no longer reaches a file but reached a moved one — from the file's own old place if the file itself
 *    moved — is rewritten to reach it from where the file is now (the extension kept as written).
 * 3. In those files and in the Markdown (docs/, the top-level *.md): a mention `core/<old>.ts|js` or
 *    `src/core/<old>.ts|js` (not part of a longer path) names `core/<new>` instead.
 * 4. `biome check --write` on the code files it rewrote (import order, line wrapping), as `npm run check` wants.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const CORE = join(ROOT, 'src/core');

/** The rooms: folder → the files of src/core/ it holds. The top keeps the glossary, the error table, the
 * operation machinery and the files that assemble the rooms' parts into the whole set. */
const ROOMS = {
  shared: ['agent-name', 'bounded', 'canonical-json', 'clock', 'ids', 'names', 'sha256', 'version'],
  board: ['blockers', 'dependency-graph', 'outcomes', 'plan-schemas', 'rules'],
  edits: ['edit-decision', 'edit-request', 'paths', 'shell-edits'],
  worktrees: ['change-schemas', 'change-text', 'changes-text', 'git-port', 'holds', 'worktree-ports'],
  integration: ['describe-integration', 'integration', 'integration-lanes', 'integration-ports', 'integration-schemas'],
  connectors: ['confine', 'connector-ports'],
  messages: ['inbox-text', 'message-ports', 'message-schemas', 'message-text'],
  attention: ['attention', 'attention-schemas'],
  runs: ['supervision'],
};

/** old path → new path, relative to src/core/, without extension. */
const MOVES = new Map(Object.entries(ROOMS).flatMap(([room, names]) => names.map((n) => [n, `${room}/${n}`])));
const BACK = new Map([...MOVES].map(([o, n]) => [n, o]));

const isFile = (p) => existsSync(p) && statSync(p).isFile();
const git = (...args) => execFileSync('git', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] }).toString();

// 1. Move.
let moved = 0;
for (const [from, to] of MOVES) {
  const a = join(CORE, `${from}.ts`);
  const b = join(CORE, `${to}.ts`);
  if (!isFile(a)) continue;
  if (isFile(b)) throw new Error(`both src/core/${from}.ts and src/core/${to}.ts exist: merge them by hand`);
  mkdirSync(dirname(b), { recursive: true });
  git('mv', a, b);
  moved++;
}

// 2 and 3. Rewrite.
const CODE = /\.(ts|mts|cts|mjs|cjs|js)$/;
const SKIP = new Set(['node_modules', 'dist', '.git', 'coverage']);
function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const p = join(dir, name);
    const s = statSync(p);
    if (s.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

/** The core file (relative to src/core/, no extension) an absolute path without extension names, if any. */
const coreKey = (abs) => {
  const rel = relative(CORE, abs);
  return rel.startsWith('..') ? null : rel;
};
const SOURCE_EXT = /\.(js|ts|mjs|mts)$/;

/** The new spec for a relative one written in `file`, or null when it is right as it is. */
function rewriteSpec(file, spec) {
  const ext = spec.match(SOURCE_EXT)?.[0] ?? '';
  const bare = ext ? spec.slice(0, -ext.length) : spec;
  const reaches = (dir) => resolve(dir, bare);
  const exists = (abs) => isFile(`${abs}.ts`) || isFile(`${abs}.js`) || isFile(`${abs}.mjs`) || isFile(abs + ext);
  const here = reaches(dirname(file));
  if (exists(here)) return null;
  // Where the file was before it moved (its own imports were written from there).
  const selfKey = coreKey(file.replace(/\.ts$/, ''));
  const oldSelf = selfKey && BACK.has(selfKey) ? join(CORE, `${BACK.get(selfKey)}.ts`) : file;
  for (const base of [here, reaches(dirname(oldSelf))]) {
    const key = coreKey(base);
    const target = key && MOVES.get(key);
    const abs = target ? join(CORE, target) : base !== here && exists(base) ? base : null;
    if (!abs || !exists(abs)) continue;
    let rel = relative(dirname(file), abs);
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return rel + ext;
  }
  return null;
}

const names = [...MOVES.keys()].sort((a, b) => b.length - a.length).join('|');
const MENTION = new RegExp(`(?<![\\w./-])((?:src/)?core/)(${names})\\.(ts|js)\\b`, 'g');
const mentions = (text) => text.replace(MENTION, (_, pre, name, ext) => `${pre}${MOVES.get(name)}.${ext}`);

const SPEC = /(['"`])(\.{1,2}\/[^'"`\s$]*)\1/g;
const changed = [];
const files = [...['src', 'test', 'bench', 'scripts', 'docs'].flatMap((d) => walk(join(ROOT, d)))];
for (const name of readdirSync(ROOT)) if (name.endsWith('.md')) files.push(join(ROOT, name));
for (const file of files) {
  const code = CODE.test(file);
  if (!code && !file.endsWith('.md')) continue;
  if (file === new URL(import.meta.url).pathname) continue;
  const before = readFileSync(file, 'utf8');
  let after = code
    ? before.replace(SPEC, (whole, q, spec) => {
        const next = rewriteSpec(file, spec);
        return next ? `${q}${next}${q}` : whole;
      })
    : before;
  after = mentions(after);
  if (after !== before) {
    writeFileSync(file, after);
    changed.push(relative(ROOT, file));
  }
}
// Longer paths sort and wrap differently: the project's own formatter orders the imports and wraps the lines of
// the files rewritten (its safe fixes only), so `npm run check` passes after the script.
const formatted = changed.filter((f) => CODE.test(f));
const biome = join(ROOT, 'node_modules/.bin/biome');
if (formatted.length && existsSync(biome))
  execFileSync(biome, ['check', '--write', '--files-ignore-unknown=true', '--no-errors-on-unmatched', ...formatted], {
    cwd: ROOT,
    stdio: 'inherit',
  });
console.log(`core-rooms: ${moved} file(s) moved, ${changed.length} file(s) rewritten`);
for (const f of changed) console.log(`  ${f}`);
