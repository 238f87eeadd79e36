/**
 * File and function sizes of a tree of .ts files (issue 26's closing note): the distribution of file lines
 * and of function lines (every function, method, arrow and accessor, by its span), with the largest named.
 * Usage: node --import tsx scripts/sizes.ts [dir=src]
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { type Node, type SourceFile, SyntaxKind } from 'typescript/unstable/ast';
import { createVirtualFileSystem } from 'typescript/unstable/fs';
import { API } from 'typescript/unstable/sync';
import { tsFiles } from '../test/architecture/source-reader.js';

const FUNCTIONS = new Set<SyntaxKind>([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
  SyntaxKind.Constructor,
]);

const dir = process.argv[2] ?? 'src';
const files = tsFiles(dir);
const virtual: Record<string, string> = {};
files.forEach((f, i) => {
  virtual[`/s/f${i}.ts`] = readFileSync(f, 'utf8');
});
virtual['/s/tsconfig.json'] = JSON.stringify({
  compilerOptions: { noEmit: true, noResolve: true, noLib: true, types: [] },
  files: files.map((_, i) => `f${i}.ts`),
});
const api = new API({ cwd: '/s', fs: createVirtualFileSystem(virtual) });
const program = api.updateSnapshot({ openProject: '/s/tsconfig.json' }).getProjects()[0]!.program;
const fileLines: number[] = [];
const fns: { where: string; lines: number }[] = [];
files.forEach((f, i) => {
  const sf = program.getSourceFile(`/s/f${i}.ts`) as SourceFile;
  const text = sf.text;
  fileLines.push(text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
  const lineAt = (pos: number) => text.slice(0, pos).split('\n').length;
  const visit = (n: Node): void => {
    if (FUNCTIONS.has(n.kind)) {
      const start = lineAt(n.getStart(sf));
      const name = (n as Node & { name?: { text?: string } }).name?.text ?? '(anonymous)';
      fns.push({ where: `${relative('.', f)}:${start} ${name}`, lines: lineAt(n.end) - start + 1 });
    }
    n.forEachChild(visit);
  };
  sf.forEachChild(visit);
});
api.close();

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const row = (what: string, xs: number[], bands: number[]) =>
  `${what}: n=${xs.length} total=${xs.reduce((a, b) => a + b, 0)} median=${pct(xs, 0.5)} p90=${pct(xs, 0.9)} max=${Math.max(...xs)} | ${bands
    .map((b) => `>${b}: ${xs.filter((x) => x > b).length}`)
    .join(' ')}`;
console.log(row('files (lines)', fileLines, [100, 200, 400]));
console.log(
  row(
    'functions (lines)',
    fns.map((f) => f.lines),
    [40, 80, 150],
  ),
);
for (const f of fns.sort((a, b) => b.lines - a.lines).slice(0, 5)) console.log(`  ${f.lines}  ${f.where}`);
