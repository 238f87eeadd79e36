/**
 * Reads imports and string literals with a real parser: the TypeScript compiler's own (typescript 7's API,
 * which parses in the tsgo process), never a regular expression. A regular expression missed a side-effect
 * import (`import '../server/start.js';`) and a dynamic `import(...)`; a grep for `/v1/` missed template
 * literals. The architecture tests (imports, hook-weight, mcp-weight) all read sources through here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Node, type SourceFile, SyntaxKind } from 'typescript/unstable/ast';
import { createVirtualFileSystem } from 'typescript/unstable/fs';
import { API } from 'typescript/unstable/sync';

/** How a file names another module. A type-only import (`import type`, `export type … from`) loads nothing. */
export type ImportForm = 'static' | 'side-effect' | 're-export' | 'dynamic' | 'require';
export const IMPORT_FORMS: readonly ImportForm[] = ['static', 'side-effect', 're-export', 'dynamic', 'require'];

export interface ImportRef {
  /** The module specifier, or `(computed)` when a dynamic import or require names it with an expression. */
  spec: string;
  form: ImportForm;
  line: number;
}

export interface StringRef {
  /** A string literal's text, or one literal part of a template literal. */
  text: string;
  line: number;
}

/** A variable declared at the top of a module (`let x = 0`, `export const m = new Map()`), as written. */
export interface TopBinding {
  keyword: 'const' | 'let' | 'var';
  name: string;
  /** The type annotation's text, or '' when none. */
  type: string;
  /** The initializer's text, or '' when none. */
  init: string;
  line: number;
}

export interface Reading {
  imports: ImportRef[];
  strings: StringRef[];
  /** The module's own top-level variables (module-level state is read from these: core-state.test.ts). */
  bindings: TopBinding[];
}

/** Every `.ts` file under `dir`. */
export function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? tsFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const isStringLike = (n: Node): n is Node & { text: string } =>
  n.kind === SyntaxKind.StringLiteral || n.kind === SyntaxKind.NoSubstitutionTemplateLiteral;

const TEMPLATE_PARTS = new Set<SyntaxKind>([
  SyntaxKind.TemplateHead,
  SyntaxKind.TemplateMiddle,
  SyntaxKind.TemplateTail,
]);

/** `require(…)` or `createRequire(import.meta.url)(…)`. */
function isRequireCallee(callee: Node): boolean {
  if (callee.kind === SyntaxKind.Identifier) return (callee as Node & { text: string }).text === 'require';
  if (callee.kind !== SyntaxKind.CallExpression) return false;
  const inner = (callee as Node & { expression: Node }).expression;
  return inner.kind === SyntaxKind.Identifier && (inner as Node & { text: string }).text === 'createRequire';
}

function readSourceFile(sf: SourceFile): Reading {
  const imports: ImportRef[] = [];
  const strings: StringRef[] = [];
  const text = sf.text;
  const lineOf = (n: Node) => text.slice(0, n.getStart(sf)).split('\n').length;
  const specOf = (n: Node | undefined) => (n && isStringLike(n) ? n.text : '(computed)');
  const visit = (n: Node): void => {
    if (n.kind === SyntaxKind.ImportDeclaration) {
      const d = n as Node & { importClause?: Node & { isTypeOnly: boolean }; moduleSpecifier: Node };
      if (!d.importClause) imports.push({ spec: specOf(d.moduleSpecifier), form: 'side-effect', line: lineOf(n) });
      else if (!d.importClause.isTypeOnly)
        imports.push({ spec: specOf(d.moduleSpecifier), form: 'static', line: lineOf(n) });
      return;
    }
    if (n.kind === SyntaxKind.ExportDeclaration) {
      const d = n as Node & { isTypeOnly: boolean; moduleSpecifier?: Node };
      if (d.moduleSpecifier && !d.isTypeOnly)
        imports.push({ spec: specOf(d.moduleSpecifier), form: 're-export', line: lineOf(n) });
      return;
    }
    if (n.kind === SyntaxKind.ImportEqualsDeclaration) {
      const d = n as Node & { isTypeOnly: boolean; moduleReference: Node & { expression?: Node } };
      if (!d.isTypeOnly && d.moduleReference.kind === SyntaxKind.ExternalModuleReference)
        imports.push({ spec: specOf(d.moduleReference.expression), form: 'require', line: lineOf(n) });
      return;
    }
    if (n.kind === SyntaxKind.ImportType) return; // `typeof import('x')` in a type: erased, loads nothing
    if (n.kind === SyntaxKind.CallExpression) {
      const c = n as Node & { expression: Node; arguments: readonly Node[] };
      if (c.expression.kind === SyntaxKind.ImportKeyword)
        imports.push({ spec: specOf(c.arguments[0]), form: 'dynamic', line: lineOf(n) });
      else if (isRequireCallee(c.expression))
        imports.push({ spec: specOf(c.arguments[0]), form: 'require', line: lineOf(n) });
    }
    if (isStringLike(n) || TEMPLATE_PARTS.has(n.kind))
      strings.push({ text: (n as Node & { text: string }).text, line: lineOf(n) });
    n.forEachChild(visit);
  };
  sf.forEachChild(visit);
  return { imports, strings, bindings: topBindings(sf, lineOf) };
}

function topBindings(sf: SourceFile, lineOf: (n: Node) => number): TopBinding[] {
  const src = (n: Node | undefined) => (n ? sf.text.slice(n.getStart(sf), n.end) : '');
  const out: TopBinding[] = [];
  sf.forEachChild((statement) => {
    if (statement.kind !== SyntaxKind.VariableStatement) return;
    const list = (statement as Node & { declarationList: Node & { declarations: readonly Node[] } }).declarationList;
    const keyword = src(list).split(/\s/)[0] as TopBinding['keyword'];
    for (const d of list.declarations) {
      const decl = d as Node & { name: Node; type?: Node; initializer?: Node };
      out.push({ keyword, name: src(decl.name), type: src(decl.type), init: src(decl.initializer), line: lineOf(d) });
    }
  });
  return out;
}

/**
 * Parses each file (path → source; the paths need not exist on disk) and returns what each one imports and
 * which strings it writes. One tsgo process parses them all; nothing is resolved or type-checked.
 */
export function readSources(sources: Record<string, string>): Map<string, Reading> {
  const root = '/__coord_reader__';
  const names = Object.keys(sources);
  const virtual: Record<string, string> = {};
  names.forEach((name, i) => {
    virtual[`${root}/f${i}.ts`] = sources[name] ?? '';
  });
  virtual[`${root}/tsconfig.json`] = JSON.stringify({
    compilerOptions: { noEmit: true, noResolve: true, noLib: true, types: [], module: 'nodenext', target: 'es2022' },
    files: names.map((_, i) => `f${i}.ts`),
  });
  const api = new API({ cwd: root, fs: createVirtualFileSystem(virtual) });
  try {
    const program = api.updateSnapshot({ openProject: `${root}/tsconfig.json` }).getProjects()[0]?.program;
    if (!program) throw new Error('the TypeScript API opened no project');
    const out = new Map<string, Reading>();
    names.forEach((name, i) => {
      const sf = program.getSourceFile(`${root}/f${i}.ts`);
      if (!sf) throw new Error(`the TypeScript API did not parse ${name}`);
      out.set(name, readSourceFile(sf));
    });
    return out;
  } finally {
    api.close();
  }
}

/** Reads files from disk (see readSources). */
export function readFiles(paths: string[]): Map<string, Reading> {
  return readSources(Object.fromEntries(paths.map((p) => [p, readFileSync(p, 'utf8')])));
}
