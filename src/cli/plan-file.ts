/**
 * A plan file for `coord plan FILE`: JSON, or the small subset of YAML a plan
 * needs — nested mappings and lists by indentation, `- item` lists, inline
 * `[a, b]` lists, quoted and plain scalars, integers, booleans, `#` comments
 * and `|` / `>` block text. Anything else is refused with its line number.
 * (Burden of proof is on addition: this is enough for plans, so no YAML package.)
 */

export function parsePlanFile(text: string): unknown {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return JSON.parse(text);
  return parseYaml(text);
}

interface Line {
  n: number;
  indent: number;
  text: string;
}

export class YamlError extends Error {}

const fail = (line: Line | undefined, why: string): never => {
  throw new YamlError(line ? `line ${line.n}: ${why}` : why);
};

/** Drops a trailing ` # comment` outside quotes. */
function stripComment(s: string): string {
  let quote: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || s[i - 1] === ' ')) return s.slice(0, i).trimEnd();
  }
  return s.trimEnd();
}

export function parseYaml(text: string): unknown {
  const raw = text.replace(/\r\n?/g, '\n').split('\n');
  const lines: Line[] = [];
  raw.forEach((l, i) => {
    if (/^\s*(#.*)?$/.test(l) || l.trim() === '---') return;
    if (/^\t| \t/.test(l)) fail({ n: i + 1, indent: 0, text: l }, 'tabs are not allowed for indentation');
    const indent = l.length - l.trimStart().length;
    lines.push({ n: i + 1, indent, text: l.slice(indent) });
  });
  const p = { lines, raw, i: 0 };
  if (lines.length === 0) return null;
  const value = block(p, lines[0]!.indent);
  if (p.i < lines.length) fail(lines[p.i], 'unexpected indentation');
  return value;
}

interface Parser {
  lines: Line[];
  raw: string[];
  i: number;
}

function block(p: Parser, indent: number): unknown {
  const first = p.lines[p.i]!;
  return first.text.startsWith('- ') || first.text === '-' ? list(p, indent) : mapping(p, indent);
}

function list(p: Parser, indent: number): unknown[] {
  const out: unknown[] = [];
  for (
    let l = p.lines[p.i];
    l && l.indent === indent && (l.text.startsWith('- ') || l.text === '-');
    l = p.lines[p.i]
  ) {
    const rest = l.text.slice(1).trimStart();
    if (rest === '') {
      p.i++;
      out.push(p.lines[p.i] && p.lines[p.i]!.indent > indent ? block(p, p.lines[p.i]!.indent) : null);
      continue;
    }
    // "- key: value" opens a mapping whose keys sit at the column after "- ".
    const col = indent + (l.text.length - rest.length);
    if (/^[^"'[{][^:]*:(\s|$)/.test(rest)) {
      p.lines[p.i] = { n: l.n, indent: col, text: rest };
      out.push(mapping(p, col));
    } else {
      p.i++;
      out.push(scalar(stripComment(rest), l));
    }
  }
  return out;
}

function mapping(p: Parser, indent: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let l = p.lines[p.i]; l && l.indent === indent; l = p.lines[p.i]) {
    const m = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^:]+?):(?:\s+(.*))?$/.exec(l.text);
    if (!m) fail(l, `expected "key: value", got "${l.text}"`);
    const key = String(scalar(m![1]!, l));
    if (Object.hasOwn(out, key)) fail(l, `key "${key}" appears twice`);
    const rest = stripComment(m![2] ?? '');
    p.i++;
    if (rest === '|' || rest === '>' || rest === '|-' || rest === '>-') {
      out[key] = blockText(p, l, indent, rest);
    } else if (rest === '') {
      const next = p.lines[p.i];
      out[key] =
        next && (next.indent > indent || (next.indent === indent && next.text.startsWith('- ')))
          ? block(p, next.indent)
          : null;
    } else out[key] = scalar(rest, l);
  }
  return out;
}

/** `|` keeps newlines, `>` folds them into spaces; `-` drops the final newline. */
function blockText(p: Parser, head: Line, indent: number, style: string): string {
  const taken: string[] = [];
  let inner = -1;
  let at = head.n; // raw index of the line after the header
  for (; at < p.raw.length; at++) {
    const l = p.raw[at]!;
    if (l.trim() === '') {
      taken.push('');
      continue;
    }
    const ind = l.length - l.trimStart().length;
    if (ind <= indent) break;
    if (inner < 0) inner = ind;
    if (ind < inner) break;
    taken.push(l.slice(inner));
  }
  while (taken.length && taken.at(-1) === '') taken.pop();
  // Skip the parsed lines that belonged to the block.
  while (p.i < p.lines.length && p.lines[p.i]!.n <= at) p.i++;
  const text = style.startsWith('>') ? taken.join(' ').replace(/ {2,}/g, ' ') : taken.join('\n');
  return style.endsWith('-') ? text : `${text}\n`;
}

function scalar(s: string, line: Line): unknown {
  const t = s.trim();
  if (t.startsWith('"')) {
    try {
      return JSON.parse(t) as string;
    } catch {
      fail(line, `bad double-quoted string ${t}`);
    }
  }
  if (t.startsWith("'")) {
    if (!t.endsWith("'") || t.length < 2) fail(line, `bad single-quoted string ${t}`);
    return t.slice(1, -1).replaceAll("''", "'");
  }
  if (t.startsWith('[')) {
    if (!t.endsWith(']')) fail(line, 'an inline list must end with ] on the same line');
    const inner = t.slice(1, -1).trim();
    return inner === '' ? [] : splitFlow(inner).map((x) => scalar(x, line));
  }
  if (t.startsWith('{')) fail(line, 'inline {mappings} are not supported: use indentation');
  if (/^-?\d+$/.test(t)) return Number(t);
  if (t === 'true' || t === 'false') return t === 'true';
  if (t === 'null' || t === '~') return null;
  return t;
}

function splitFlow(s: string): string[] {
  const parts: string[] = [];
  let quote: string | null = null;
  let cur = '';
  for (const c of s) {
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ',') {
      parts.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  parts.push(cur);
  return parts.map((x) => x.trim());
}
