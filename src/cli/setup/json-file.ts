/**
 * Edits to a client's JSON config that can be undone exactly: set a key,
 * add an item to a list, put a hook group in an event's list. Applying an
 * edit that is already in place changes nothing (the text is not even
 * re-serialised), so running setup twice leaves the file byte-identical.
 */
import type { JsonEdit } from '../../clients/profile.js';

export type { JsonEdit, JsonPath } from '../../clients/profile.js';

type Doc = Record<string, unknown>;

export class ConfigUnreadable extends Error {}

export function parseDoc(text: string | null, path: string): Doc {
  if (text === null || text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ConfigUnreadable(`${path} is not valid JSON — fix it, then run setup again`);
  }
  if (!isObject(v)) throw new ConfigUnreadable(`${path} is not a JSON object`);
  return v;
}

/** The file's text with the edits in place; the same text when they already are. */
export function applyJson(text: string | null, edits: JsonEdit[], path: string): string {
  const doc = parseDoc(text, path);
  let changed = false;
  for (const e of edits) changed = applyOne(doc, e, path) || changed;
  if (!changed && text !== null) return text;
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * Takes out exactly what the edits put in: coord's keys and groups go, items coord added leave their
 * lists, and what `before` held is put back. `before` is the file before setup (null: there was
 * none); `undefined` when setup has no record of it — then coord's own entries are found by their
 * names and marks, shared keys are left, and no container is pruned (an empty one may be the user's).
 * Returns the same text when nothing of coord's is there, and null when nothing else is left of a
 * file that did not exist before.
 */
export function undoJson(
  text: string | null,
  edits: JsonEdit[],
  before: string | null | undefined,
  path: string,
): string | null {
  if (text === null) return null;
  const doc = parseDoc(text, path);
  const was = JSON.stringify(doc);
  const prior = before === undefined ? undefined : parseDoc(before, path);
  for (const e of edits) undoOne(doc, e, prior);
  // Only the containers on coord's own paths, left empty, that were not there before: coord made them.
  if (prior) for (const e of edits) pruneAlong(doc, e.op === 'set' ? e.path.slice(0, -1) : e.path, prior);
  if (JSON.stringify(doc) === was) return text;
  if (before === null && Object.keys(doc).length === 0) return null;
  return `${JSON.stringify(doc, null, 2)}\n`;
}

function applyOne(doc: Doc, e: JsonEdit, path: string): boolean {
  const parent = container(doc, e.path.slice(0, -1), path);
  const key = e.path.at(-1) ?? '';
  if (e.op === 'set') {
    if (deepEqual(parent[key], e.value)) return false;
    parent[key] = e.value;
    return true;
  }
  const list = parent[key] ?? [];
  if (!Array.isArray(list)) throw new ConfigUnreadable(`${path}: ${e.path.join('.')} is not a list`);
  if (e.op === 'union') {
    if (list.some((x) => deepEqual(x, e.item))) return false;
    parent[key] = [...list, e.item];
    return true;
  }
  const ours = list.findIndex((g) => isOurs(g, e.mark));
  if (ours >= 0 && deepEqual(list[ours], e.group)) return false;
  parent[key] = ours >= 0 ? list.map((g, i) => (i === ours ? e.group : g)) : [...list, e.group];
  return true;
}

function undoOne(doc: Doc, e: JsonEdit, prior: Doc | undefined): void {
  const parent = lookup(doc, e.path.slice(0, -1));
  if (!isObject(parent)) return;
  const key = e.path.at(-1) ?? '';
  const was = prior === undefined ? undefined : lookup(prior, e.path);
  if (e.op === 'set') {
    if (prior === undefined && e.shared) return;
    if (was === undefined) delete parent[key];
    else parent[key] = was;
    return;
  }
  const list = parent[key];
  if (!Array.isArray(list)) return;
  const keep =
    e.op === 'union'
      ? list.filter((x) => !deepEqual(x, e.item) || (Array.isArray(was) && was.some((w) => deepEqual(w, x))))
      : list.filter((g) => !isOurs(g, e.mark));
  parent[key] = keep;
}

/** Along `path`, deepest first: a container left empty that `prior` did not have was coord's scaffolding. */
function pruneAlong(doc: Doc, path: string[], prior: Doc): void {
  for (let n = path.length; n > 0; n--) {
    const at = path.slice(0, n);
    const v = lookup(doc, at);
    const empty = (isObject(v) && Object.keys(v).length === 0) || (Array.isArray(v) && v.length === 0);
    if (!empty || lookup(prior, at) !== undefined) return;
    const parent = lookup(doc, at.slice(0, -1));
    if (isObject(parent)) delete parent[at.at(-1) ?? ''];
  }
}

function container(doc: Doc, path: string[], file: string): Doc {
  let at = doc;
  for (const k of path) {
    const next = at[k] ?? {};
    if (!isObject(next)) throw new ConfigUnreadable(`${file}: ${path.join('.')} is not an object`);
    at[k] = next;
    at = next;
  }
  return at;
}

function lookup(doc: unknown, path: string[]): unknown {
  let at = doc;
  for (const k of path) {
    if (!isObject(at)) return undefined;
    at = at[k];
  }
  return at;
}

/** A hook group is coord's when one of its commands carries the mark (e.g. `hook pre-edit --client claude`). */
const isOurs = (group: unknown, mark: string): boolean =>
  isObject(group) &&
  (JSON.stringify(group).includes(mark) || (typeof group.command === 'string' && group.command.includes(mark)));

const isObject = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
