/**
 * The import graph and the URL rule (STYLE.md: dependencies read like the diagram; no hand-written `/v1/…`
 * URL outside src/api/). Sources are read by the TypeScript parser (source-reader.ts), so every way of
 * loading a module counts — static, side-effect, `export … from`, dynamic `import()`, `require` — and
 * template literals count as strings. Each rule is shown to fail on each form planted in each folder, read
 * together with the real tree so the planted files are the only findings.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { IMPORT_FORMS, type ImportForm, type Reading, readFiles, readSources, tsFiles } from './source-reader.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const SRC = join(ROOT, 'src');

/** Which layers each layer may import (STYLE.md: dependencies read like the diagram). */
export const ALLOWED: Record<string, string[]> = {
  core: ['core'],
  clients: ['clients'],
  // Plugins run inside other programs (OpenCode, Cline, Pi): Node built-ins and each other only, statically,
  // and of clients only the tool names their profiles read too (PLUGIN_READS below); hook-call.ts imports
  // coord's hook entry (hooks/main) at run time, and starts `coord hook` where it cannot.
  plugins: ['plugins', 'clients'],
  store: ['store', 'core'],
  'state-dir': ['state-dir', 'core'],
  api: ['api', 'core'],
  git: ['git', 'core'],
  // SPEC §18: starting, watching and ending agent processes; the board reached through an interface the CLI
  // (over HTTP) and the server (in process) fill in.
  supervisor: ['supervisor', 'core', 'git', 'clients'],
  server: ['server', 'core', 'store', 'state-dir', 'api', 'git', 'clients', 'supervisor'],
  client: ['client', 'core', 'state-dir', 'api', 'clients'],
  cli: ['cli', 'client', 'state-dir', 'core', 'api', 'git', 'clients', 'supervisor'],
  hooks: ['hooks', 'client', 'state-dir', 'core', 'api', 'git', 'clients'],
  // The entry point dispatches: it loads the hooks, the CLI or the version lazily (LAZY), so a hook loads no
  // CLI parser and `coord --version` nothing at all; the build's hook and `coord mcp` bundles are required as they are.
  'main.ts': ['hook-bundle', 'mcp-bundle'],
};

/**
 * Layers a layer may load only lazily, by a dynamic `import()`: `coord serve` loads the server when it runs,
 * so every other command starts without fastify, the stores or the MCP server SDK; a plugin loads coord's
 * hooks into its client at run time, and where the client's runtime cannot, starts `coord hook` instead.
 */
export const LAZY: Record<string, string[]> = {
  cli: ['server'],
  plugins: ['hooks'],
  'main.ts': ['cli', 'hooks', 'core'],
};

/**
 * Core's rooms (issue 35): which parts of src/core/ each part may load at run time (`import type` loads nothing
 * and is not counted). `core/*.ts` is the top — the glossary (model.ts), the error table (errors.ts), the
 * operation machinery (operation.ts, operations.ts, invoke.ts, presence.ts) and the files that assemble the
 * rooms' parts into the whole set (schemas.ts, fields.ts, output-schemas.ts, ports.ts, events.ts,
 * event-entries.ts); it and `core/ops` (the use cases) may load every room. `core/shared` (hashes, ids, the
 * clock, names — what even the hooks load) loads nothing else of core. A feature's room loads the top, shared
 * and the rooms named here, and never ops/: the use cases stand above the rooms, not inside them.
 */
const TOP = 'core/*.ts';
const ROOMS = ['attention', 'board', 'connectors', 'edits', 'integration', 'messages', 'runs', 'shared', 'worktrees'];
const EVERY_ROOM = [TOP, 'core/ops', ...ROOMS.map((r) => `core/${r}`)];
export const CORE_ROOMS: Record<string, string[]> = {
  [TOP]: EVERY_ROOM,
  'core/ops': EVERY_ROOM,
  'core/shared': [],
  'core/board': [TOP, 'core/shared', 'core/edits', 'core/integration', 'core/worktrees'],
  'core/edits': [TOP, 'core/shared', 'core/worktrees'],
  'core/worktrees': [TOP, 'core/shared', 'core/edits'],
  'core/integration': [TOP, 'core/shared'],
  'core/connectors': [TOP, 'core/shared'],
  'core/messages': [TOP, 'core/shared'],
  'core/attention': [TOP, 'core/shared'],
  'core/runs': [TOP, 'core/shared'],
};

/** The part of src/core/ a path is in: `core/*.ts` for a file at its top, else `core/<folder>`. */
const roomOf = (path: string): string => {
  const parts = relative(join(SRC, 'core'), path).split('/');
  return parts.length > 1 ? `core/${parts[0]}` : TOP;
};

/** The one clients module a plugin may load (it imports nothing): the tool names its profile reads too. */
const PLUGIN_READS = /\/clients\/tool-names\.js$/;

const EDGE_PACKAGES =
  /^(node:http|node:https|node:net|fastify|commander|better-sqlite3|pg|@modelcontextprotocol\/|pino|fs-ext)/;

/** The top folder of src/ a relative import lands in (`core`, `store`, …), or null for a package. */
const layerOf = (file: string, spec: string): string | null => {
  if (!spec.startsWith('.')) return null;
  const target = relative(SRC, resolve(dirname(file), spec));
  return target.startsWith('..') ? '(outside src)' : (target.split('/')[0] ?? null);
};

/** Every rule broken by one file, as `file (layer) …` lines. */
export function violations(file: string, reading: Reading): string[] {
  const where = relative(ROOT, file);
  const layer = relative(SRC, file).split('/')[0] ?? '';
  const out: string[] = [];
  const allowed = ALLOWED[layer];
  for (const { spec, form, line } of allowed ? reading.imports : []) {
    if (spec === '(computed)') out.push(`${where}:${line} (${layer}) loads a computed module name (${form})`);
    const to = layerOf(file, spec);
    const lazyOk = form === 'dynamic' && to !== null && LAZY[layer]?.includes(to);
    if (to !== null && !allowed?.includes(to) && !lazyOk)
      out.push(`${where}:${line} (${layer}) imports ${to} (${form}): ${spec}`);
    if (layer === 'plugins' && to === 'clients' && !PLUGIN_READS.test(spec))
      out.push(`${where}:${line} (plugins) imports of clients more than its tool names (${form}): ${spec}`);
    if (layer === 'core' && EDGE_PACKAGES.test(spec))
      out.push(`${where}:${line} (core) imports an edge package (${form}): ${spec}`);
    const [from, into] = [roomOf(file), roomOf(resolve(dirname(file), spec))];
    if (layer === 'core' && to === 'core' && from !== into && !CORE_ROOMS[from]?.includes(into))
      out.push(`${where}:${line} (${from}) imports ${into} (${form}): ${spec}`);
  }
  if (layer !== 'api')
    for (const { text, line } of reading.strings)
      if (text.includes('/v1/')) out.push(`${where}:${line} writes a /v1/ URL outside src/api/: ${text}`);
  return out;
}

const findings = (readings: Map<string, Reading>) => [...readings].flatMap(([file, r]) => violations(file, r));

test('every file in src/ imports only the layers its folder may depend on and writes no /v1/ URL outside src/api/', () => {
  assert.deepEqual(findings(readFiles(tsFiles(SRC))), []);
});

test('every top folder and file of src/ has a dependency rule', () => {
  const entries = readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory() || n.endsWith('.ts'));
  assert.deepEqual(
    entries.filter((f) => !ALLOWED[f]),
    [],
  );
});

test('every folder of src/core/ is a room with a rule', () => {
  const folders = readdirSync(join(SRC, 'core')).filter((n) => statSync(join(SRC, 'core', n)).isDirectory());
  assert.deepEqual(
    folders.map((f) => `core/${f}`).sort(),
    Object.keys(CORE_ROOMS)
      .filter((r) => r !== TOP)
      .sort(),
  );
});

test("docs/architecture.md's table lists every rule this test checks, and no other", () => {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  // | `folder` | may import | only lazily | why |: the layers named in backticks in the second and third columns.
  const named = (cell = '') => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '').sort();
  const rows = [...doc.matchAll(/^\| `([^`]+)` \| ([^|]*) \| ([^|]*) \|/gm)];
  const documented = Object.fromEntries(
    rows.map(([, name, may, lazy]) => [name, { may: named(may), lazy: named(lazy) }]),
  );
  const checked = Object.fromEntries(
    [...Object.entries(ALLOWED), ...Object.entries(CORE_ROOMS)].map(([layer, allowed]) => [
      layer,
      { may: allowed.filter((l) => l !== layer).sort(), lazy: [...(LAZY[layer] ?? [])].sort() },
    ]),
  );
  assert.deepEqual(documented, checked);
});

/** The same module named in each import form. */
const planted: Record<ImportForm, (spec: string) => string> = {
  static: (s) => `import { x } from '${s}';\nexport const y = x;\n`,
  'side-effect': (s) => `import '${s}';\n`,
  're-export': (s) => `export { x } from '${s}';\n`,
  dynamic: (s) => `export const load = async () => (await import('${s}')).x;\n`,
  require: (s) =>
    `import { createRequire } from 'node:module';\nexport const x = createRequire(import.meta.url)('${s}');\n`,
};

test('each import form planted in each folder breaks that folder rule, read beside the real tree', async (t) => {
  const sources: Record<string, string> = {};
  const cases: { name: string; finding: string }[] = [];
  for (const [layer, allowed] of Object.entries(ALLOWED)) {
    const forbidden = Object.keys(ALLOWED).find((l) => !allowed.includes(l) && !LAZY[layer]?.includes(l)) ?? 'cli';
    for (const form of IMPORT_FORMS) {
      const file = join(SRC, layer, `planted-${form}.ts`);
      sources[file] = planted[form](`../${forbidden}/anything.js`);
      cases.push({
        name: `a ${form} import of src/${forbidden}/ planted in src/${layer}/ is refused`,
        finding: `${relative(ROOT, file)} (${layer}) imports ${forbidden} (${form})`,
      });
    }
  }
  // A plain `require(…)` is read too, not only createRequire's.
  sources[join(SRC, 'client', 'planted-plain-require.ts')] =
    "declare const require: (s: string) => unknown;\nrequire('../server/start.js');\n";
  cases.push({
    name: 'a plain require() of src/server/ planted in src/client/ is refused',
    finding: 'src/client/planted-plain-require.ts (client) imports server (require)',
  });
  // A plugin loads of clients/ only the tool names: a client profile would bring its modules into the client.
  sources[join(SRC, 'plugins', 'planted-profile.ts')] = "export { PROFILES } from '../clients/index.js';\n";
  cases.push({
    name: 'a plugin importing a client profile (more than clients/tool-names) is refused',
    finding: 'src/plugins/planted-profile.ts (plugins) imports of clients more than its tool names (re-export)',
  });
  const readings = readFiles(tsFiles(SRC));
  for (const [file, reading] of readSources(sources)) readings.set(file, reading);
  const found = findings(readings).map((f) => f.replace(/:\d+ /, ' ').replace(/: [^:]*$/, ''));
  for (const c of cases) await t.test(c.name, () => assert.ok(found.includes(c.finding), c.finding));
  await t.test('nothing but the planted files is found', () =>
    assert.deepEqual(found.sort(), cases.map((c) => c.finding).sort()),
  );
});

test("each import form planted in each of core's rooms of a room it may not load is refused; import type is not", async (t) => {
  const sources: Record<string, string> = {};
  const cases: { name: string; finding: string }[] = [];
  const dirOf = (room: string) => (room === TOP ? '' : `${room.slice('core/'.length)}/`);
  for (const [room, allowed] of Object.entries(CORE_ROOMS)) {
    const forbidden = EVERY_ROOM.find((r) => r !== room && !allowed.includes(r));
    if (!forbidden) continue;
    for (const form of IMPORT_FORMS) {
      const file = join(SRC, 'core', dirOf(room), `planted-${form}.ts`);
      sources[file] = planted[form](`../${dirOf(forbidden)}anything.js`);
      cases.push({
        name: `a ${form} import of ${forbidden} planted in ${room} is refused`,
        finding: `${relative(ROOT, file)} (${room}) imports ${forbidden} (${form})`,
      });
    }
    sources[join(SRC, 'core', dirOf(room), 'planted-type.ts')] =
      `import type { X } from '../${dirOf(forbidden)}anything.js';\nexport type Y = X;\n`;
  }
  const found = findings(readSources(sources)).map((f) => f.replace(/:\d+ /, ' ').replace(/: [^:]*$/, ''));
  for (const c of cases) await t.test(c.name, () => assert.ok(found.includes(c.finding), c.finding));
  await t.test('nothing but the planted imports is found (an import type is not)', () =>
    assert.deepEqual(found.sort(), cases.map((c) => c.finding).sort()),
  );
});

test('src/cli/ may load src/server/ by a dynamic import only: every other form of it is refused', () => {
  const sources: Record<string, string> = {};
  for (const form of IMPORT_FORMS) sources[join(SRC, 'cli', `server-${form}.ts`)] = planted[form]('../server/start.js');
  const found = findings(readSources(sources)).map((f) => f.replace(/:\d+ .*\((.*)\).*/, ' $1'));
  assert.deepEqual(
    found.sort(),
    IMPORT_FORMS.filter((f) => f !== 'dynamic')
      .map((f) => `src/cli/server-${f}.ts ${f}`)
      .sort(),
  );
});

test('each import form of an edge package planted in src/core/ is refused, and import type is not', () => {
  const sources: Record<string, string> = {};
  for (const form of IMPORT_FORMS) sources[join(SRC, 'core', `edge-${form}.ts`)] = planted[form]('fastify');
  sources[join(SRC, 'core', 'edge-type-only.ts')] =
    "import type { FastifyInstance } from 'fastify';\nexport type F = FastifyInstance;\n";
  const found = findings(readSources(sources));
  assert.equal(found.length, IMPORT_FORMS.length, found.join('\n'));
  for (const form of IMPORT_FORMS)
    assert.ok(
      found.some((f) => f.includes(`edge-${form}.ts`)),
      form,
    );
});

test('a /v1/ URL planted in any folder but src/api/, as a string or in a template literal, is refused', () => {
  const sources: Record<string, string> = {};
  for (const layer of Object.keys(ALLOWED)) {
    sources[join(SRC, layer, 'url-string.ts')] = "export const u = '/v1/tasks';\n";
    sources[join(SRC, layer, 'url-template.ts')] =
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the planted source is a template literal
      'export const u = (base: string, id: string) => `${base}/v1/tasks/${id}`;\n';
    sources[join(SRC, layer, 'url-comment.ts')] = '// GET /v1/tasks in a comment is prose, not a URL\nexport {};\n';
  }
  const found = findings(readSources(sources)).map((f) => f.split(':')[0]);
  const expected = Object.keys(ALLOWED)
    .filter((l) => l !== 'api')
    .flatMap((l) => [`src/${l}/url-string.ts`, `src/${l}/url-template.ts`]);
  assert.deepEqual(found.sort(), expected.sort());
});
