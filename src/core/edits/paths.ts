/**
 * Resource keys for locks (SPEC rule 11). Two agents must reach the same key
 * for the same file, or they would both "hold" it: so every path is
 * normalised before it is compared. A key ending in `/` names a directory and
 * covers everything inside it.
 */

export const MAX_RESOURCE_CHARS = 1024;

export type Normalised = { ok: true; key: string } | { ok: false; message: string };

const isAbsolute = (p: string): boolean => p.startsWith('/') || /^[A-Za-z]:\//.test(p);

/**
 * A key naming something that is not a file — `port:5173`, `db:test` (SPEC
 * §14): a lower-case kind of two or more letters, a colon, a name. Kept as
 * spelt (NFC), never taken apart as a path.
 */
export const isKindKey = (k: string): boolean => /^[a-z][a-z0-9-]+:[^/\\]/.test(k);

/** The segments without empty ones and `.`, each `..` taking the one before it; null when one climbs above the root. */
function resolveDots(segments: string[]): string[] | null {
  const parts: string[] = [];
  for (const s of segments) {
    if (s === '' || s === '.') continue;
    if (s !== '..') parts.push(s);
    else if (parts.length === 0) return null;
    else parts.pop();
  }
  return parts;
}

/** `./a//b/../c` → `a/c`; `src/` stays a directory; climbing above the root or naming it is refused. */
export function normaliseResource(raw: string): Normalised {
  if (raw.length === 0) return { ok: false, message: 'an empty path names nothing' };
  if (raw.includes('\0')) return { ok: false, message: 'contains a NUL character' };
  // One spelling per name (SPEC §10): `café` typed precomposed or as `e` + U+0301 is one key, whoever sends it.
  const nfc = raw.normalize('NFC');
  if (isKindKey(nfc)) {
    if (nfc.length > MAX_RESOURCE_CHARS)
      return { ok: false, message: `is longer than ${MAX_RESOURCE_CHARS} characters` };
    return { ok: true, key: nfc };
  }
  // Windows agents send backslashes; a real backslash in a file name is far rarer than a missed conflict.
  const path = nfc.replaceAll('\\', '/');
  if (isAbsolute(path)) {
    return {
      ok: false,
      message: `"${raw}" is absolute — give a path relative to the repository root (coord mcp and the CLI do this for you)`,
    };
  }
  const segments = path.split('/');
  const parts = resolveDots(segments);
  if (!parts) return { ok: false, message: `"${raw}" climbs out of the repository root` };
  if (parts.length === 0) {
    return { ok: false, message: `"${raw}" names the repository root — lock a directory or file inside it` };
  }
  const last = segments.at(-1);
  const isDir = last === '' || last === '.' || last === '..';
  const key = parts.join('/') + (isDir ? '/' : '');
  if (key.length > MAX_RESOURCE_CHARS) return { ok: false, message: `is longer than ${MAX_RESOURCE_CHARS} characters` };
  return { ok: true, key };
}

export const isDirectory = (key: string): boolean => key.endsWith('/');

/** The key without its directory slash: `src/` and `src` name the same place. */
const base = (key: string): string => (isDirectory(key) ? key.slice(0, -1) : key);

/**
 * Two keys overlap when they name the same place or one lies inside the
 * other. `src` and `src/` are the same place: a file cannot have children, so
 * treating a slash-less key as covering `key/...` only ever catches the agent
 * who typed a directory without its slash.
 */
export function overlaps(a: string, b: string): boolean {
  const x = base(a);
  const y = base(b);
  return x === y || x.startsWith(`${y}/`) || y.startsWith(`${x}/`);
}

/**
 * The held keys that would overlap `key`, as a store can probe them: `exact`
 * keys by equality (every enclosing place, with and without its slash) and
 * the half-open range [`lo`, `hi`) of everything inside it ('/' + 1 = '0').
 */
export function overlapProbe(key: string): { exact: string[]; lo: string; hi: string } {
  const b = base(key);
  const exact: string[] = [];
  for (let i = b.indexOf('/'); i !== -1; i = b.indexOf('/', i + 1)) exact.push(b.slice(0, i), b.slice(0, i + 1));
  exact.push(b, `${b}/`);
  return { exact, lo: `${b}/`, hi: `${b}0` };
}

/**
 * A set of keys as the store takes it: duplicates and keys inside another key
 * of the same set dropped, sorted — the acquisition order that keeps two
 * callers from deadlocking (rule 11).
 */
export function canonicalSet(keys: string[]): string[] {
  const unique = [...new Set(keys)].sort();
  const covered = (k: string) => unique.some((other) => other !== k && overlaps(other, k) && wins(other, k));
  return unique.filter((k) => !covered(k));
}

/** Of two overlapping keys, the outer one stays; of `src` and `src/`, the directory form. */
const wins = (a: string, b: string): boolean =>
  base(a).length < base(b).length || (base(a) === base(b) && isDirectory(a));

/** Whether a key overlaps any of a set's keys (as `overlaps` says), in steps of the key's depth, not the set's size. */
export type OverlapIndex = (key: string) => boolean;

/** The index of `keys` for many questions (SPEC §14's pending paths, asked on every edit decision). */
export function overlapIndex(keys: readonly string[]): OverlapIndex {
  const places = new Set<string>();
  const enclosing = new Set<string>();
  for (const k of keys) {
    const b = base(k);
    places.add(b);
    for (let i = b.indexOf('/'); i !== -1; i = b.indexOf('/', i + 1)) enclosing.add(b.slice(0, i));
  }
  return (key) => {
    const b = base(key);
    // The same place, or a key of the set inside this one…
    if (places.has(b) || enclosing.has(b)) return true;
    // …or this one inside a key of the set.
    for (let i = b.indexOf('/'); i !== -1; i = b.indexOf('/', i + 1)) if (places.has(b.slice(0, i))) return true;
    return false;
  };
}
