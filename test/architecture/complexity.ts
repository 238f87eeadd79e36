/**
 * Cyclomatic complexity per function, counted with the TypeScript parser as the house counts it:
 * 1 + each `if`, loop (`for`, `for…in`, `for…of`, `while`, `do`), `case`, `catch`, `?:`, `&&`, `||`, `??`
 * (and their assignment forms `&&=`, `||=`, `??=`); a function nested in another is counted on its own.
 * `scripts/complexity.ts` prints the table and fails `npm run check` past the limits.
 */
import { readFileSync } from 'node:fs';
import { type Node, type SourceFile, SyntaxKind } from 'typescript/unstable/ast';
import { createVirtualFileSystem } from 'typescript/unstable/fs';
import { API } from 'typescript/unstable/sync';

export interface FunctionComplexity {
  file: string;
  line: number;
  name: string;
  complexity: number;
}

const FUNCTIONS = new Set<SyntaxKind>([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
]);

const BRANCHES = new Set<SyntaxKind>([
  SyntaxKind.IfStatement,
  SyntaxKind.ForStatement,
  SyntaxKind.ForInStatement,
  SyntaxKind.ForOfStatement,
  SyntaxKind.WhileStatement,
  SyntaxKind.DoStatement,
  SyntaxKind.CaseClause,
  SyntaxKind.CatchClause,
  SyntaxKind.ConditionalExpression,
]);

const LOGICAL = new Set<SyntaxKind>([
  SyntaxKind.AmpersandAmpersandToken,
  SyntaxKind.BarBarToken,
  SyntaxKind.QuestionQuestionToken,
  SyntaxKind.AmpersandAmpersandEqualsToken,
  SyntaxKind.BarBarEqualsToken,
  SyntaxKind.QuestionQuestionEqualsToken,
]);

type Named = Node & { name?: Node & { text?: string }; parent?: Node };

/** A readable name: the declaration's own, else the variable or property it is assigned to. */
function nameOf(n: Named): string {
  if (n.name?.text) return n.name.text;
  if (n.kind === SyntaxKind.Constructor) return 'constructor';
  const p = n.parent as Named | undefined;
  if (p && (p.kind === SyntaxKind.VariableDeclaration || p.kind === SyntaxKind.PropertyAssignment) && p.name?.text)
    return p.name.text;
  return '(anonymous)';
}

function countFile(file: string, sf: SourceFile, out: FunctionComplexity[]): void {
  const text = sf.text;
  const lineOf = (n: Node) => text.slice(0, n.getStart(sf)).split('\n').length;
  /** Counts `n`'s own decisions; a nested function starts its own count. */
  const walk = (n: Node, tally: { c: number }): void => {
    if (FUNCTIONS.has(n.kind)) {
      const own = { c: 1 };
      n.forEachChild((child) => walk(child, own));
      out.push({ file, line: lineOf(n), name: nameOf(n as Named), complexity: own.c });
      return;
    }
    if (BRANCHES.has(n.kind)) tally.c += 1;
    if (n.kind === SyntaxKind.BinaryExpression) {
      const op = (n as Node & { operatorToken: Node }).operatorToken;
      if (LOGICAL.has(op.kind)) tally.c += 1;
    }
    n.forEachChild((child) => walk(child, tally));
  };
  const top = { c: 1 };
  sf.forEachChild((child) => walk(child, top));
}

/** Every function of every file, with its complexity. */
export function complexityOf(paths: string[]): FunctionComplexity[] {
  const root = '/__coord_complexity__';
  const virtual: Record<string, string> = {};
  paths.forEach((p, i) => {
    virtual[`${root}/f${i}.ts`] = readFileSync(p, 'utf8');
  });
  virtual[`${root}/tsconfig.json`] = JSON.stringify({
    compilerOptions: { noEmit: true, noResolve: true, noLib: true, types: [], module: 'nodenext', target: 'es2022' },
    files: paths.map((_, i) => `f${i}.ts`),
  });
  const api = new API({ cwd: root, fs: createVirtualFileSystem(virtual) });
  try {
    const program = api.updateSnapshot({ openProject: `${root}/tsconfig.json` }).getProjects()[0]?.program;
    if (!program) throw new Error('the TypeScript API opened no project');
    const out: FunctionComplexity[] = [];
    paths.forEach((p, i) => {
      const sf = program.getSourceFile(`${root}/f${i}.ts`);
      if (!sf) throw new Error(`the TypeScript API did not parse ${p}`);
      countFile(p, sf, out);
    });
    return out;
  } finally {
    api.close();
  }
}
