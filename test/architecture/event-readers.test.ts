/**
 * The event catalogue is the only reader of event payloads (issue 26: "a renamed payload field fails to
 * compile everywhere it is read"). src/core/event-entries.ts reads every `data` through `EventData<T>`, the
 * type of its payload schema, so a field renamed in PAYLOADS fails to compile there. These tests show there is
 * nowhere else: no other source file reads an event's `data` (the type checker says which expressions are
 * events), the dashboard's own files read none, and the dashboard's copy of the entries is current.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { type Node, type SourceFile, SyntaxKind } from 'typescript/unstable/ast';
import { createVirtualFileSystem } from 'typescript/unstable/fs';
import { API } from 'typescript/unstable/sync';
import { TARGET, webCatalogue } from '../../scripts/dump-event-catalogue.js';
import { tsFiles } from './source-reader.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const SRC = join(ROOT, 'src');
const WEB = join(SRC, 'server/web');
/** The catalogue reads payloads; the stores' builders write them (typed by NewEvent, from the same schemas). */
const CATALOGUE = ['core/event-entries.ts', 'core/integration/checking-windows.ts'];
const inCatalogue = (r: string) => CATALOGUE.some((f) => r.startsWith(`${f}:`));

/** `x.data`, `x['data']` and `{ data } = x`: the node whose type is x's. */
function dataReads(sf: SourceFile): Node[] {
  const out: Node[] = [];
  const visit = (n: Node): void => {
    const k = n.kind;
    if (k === SyntaxKind.PropertyAccessExpression) {
      const p = n as Node & { name: Node & { text: string }; expression: Node };
      if (p.name.text === 'data') out.push(p.expression);
    } else if (k === SyntaxKind.ElementAccessExpression) {
      const p = n as Node & { argumentExpression: Node & { text?: string }; expression: Node };
      if (p.argumentExpression.text === 'data') out.push(p.expression);
    } else if (k === SyntaxKind.ObjectBindingPattern) {
      const names = (n as Node & { elements: readonly (Node & { propertyName?: Node; name: Node })[] }).elements.map(
        (el) => ((el.propertyName ?? el.name) as Node & { text?: string }).text,
      );
      if (names.includes('data')) out.push(n);
    }
    n.forEachChild(visit);
  };
  sf.forEachChild(visit);
  return out;
}

test("no source file but the catalogue reads an event's payload, so a renamed field fails to compile where it is read", () => {
  const api = new API({ cwd: ROOT });
  try {
    const project = api.updateSnapshot({ openProject: join(ROOT, 'tsconfig.json') }).getProjects()[0];
    assert.ok(project, 'the TypeScript API opened the project');
    const readers = new Set<string>();
    for (const file of tsFiles(SRC)) {
      const sf = project.program.getSourceFile(file);
      assert.ok(sf, `${file} is in the project`);
      const reads = dataReads(sf);
      if (reads.length === 0) continue;
      const types = project.checker.getTypeAtLocation(reads);
      types.forEach((t, i) => {
        const shown = t ? project.checker.typeToString(t) : '';
        // CoordEvent (z.output of EventSchema) prints as its fields (cut short after the union of types).
        if (/^\{ seq: number; type: "/.test(shown)) {
          const line = sf.text.slice(0, reads[i]?.pos ?? 0).split('\n').length;
          readers.add(`${relative(SRC, file)}:${line}`);
        }
      });
    }
    assert.deepEqual(
      [...readers].filter((r) => !inCatalogue(r)),
      [],
      'read event payloads through the catalogue (core/event-entries.ts)',
    );
    assert.ok([...readers].some(inCatalogue), 'the check sees the catalogue read them (it would see any other reader)');
  } finally {
    api.close();
  }
});

test("the dashboard's own files read no event payload: they call event-catalogue.js", () => {
  const files = readdirSync(WEB).filter((f) => f.endsWith('.js') && f !== 'event-catalogue.js');
  const virtual: Record<string, string> = {};
  files.forEach((f, i) => {
    virtual[`/w/f${i}.ts`] = readFileSync(join(WEB, f), 'utf8');
  });
  virtual['/w/tsconfig.json'] = JSON.stringify({
    compilerOptions: { noEmit: true, noResolve: true, noLib: true, types: [], allowJs: true },
    files: files.map((_, i) => `f${i}.ts`),
  });
  const api = new API({ cwd: '/w', fs: createVirtualFileSystem(virtual) });
  try {
    const program = api.updateSnapshot({ openProject: '/w/tsconfig.json' }).getProjects()[0]?.program;
    const found = files.flatMap((f, i) => {
      const sf = program?.getSourceFile(`/w/f${i}.ts`);
      assert.ok(sf, `${f} parsed`);
      return dataReads(sf).map((n) => `${f}:${sf.text.slice(0, n.pos).split('\n').length}`);
    });
    assert.deepEqual(found, []);
    for (const f of ['board.js', 'panels.js', 'detail.js'])
      assert.match(readFileSync(join(WEB, f), 'utf8'), /from '\.\/event-catalogue\.js'/, `${f} reads the catalogue`);
  } finally {
    api.close();
  }
});

test("the dashboard's event-catalogue.js is the catalogue's entries as they are (npm run catalogue:dump)", () => {
  assert.equal(readFileSync(TARGET, 'utf8'), webCatalogue(), 'stale: run npm run catalogue:dump');
});
