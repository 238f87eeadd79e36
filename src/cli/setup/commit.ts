/**
 * Setup writes every file or none (issue 23 item 6): each new content is staged in a temporary file
 * next to its target (same mode as the file it replaces), and only when every one is staged are they
 * renamed into place; a failure on the way puts back what was already replaced and removes what was
 * staged or created. Paths are followed through symbolic links — a linked CLAUDE.md is written, and
 * taken out, at its target; the link itself is the user's and is never replaced or deleted.
 */
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Setup could not write its files; nothing was changed. */
export class SetupUnwritable extends Error {}

/** The file a path names, through any symbolic links (a dangling link names the file it would create). */
export function target(path: string): string {
  let at = path;
  for (let hops = 0; hops < 32; hops++) {
    let isLink: boolean;
    try {
      isLink = lstatSync(at).isSymbolicLink();
    } catch {
      return at;
    }
    if (!isLink) return at;
    at = resolve(dirname(at), readlinkSync(at));
  }
  throw new SetupUnwritable(`${path}: too many symbolic links`);
}

/** The file's text (through links), or null when there is none. */
export function readText(path: string): string | null {
  try {
    return readFileSync(target(path), 'utf8');
  } catch (e) {
    // ENOTDIR: a folder on its path is a file, so there is no such file (writing it will fail, in time).
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw e;
  }
}

/** The top folder `mkdir -p dirname(file)` would create, if any. */
export function folderToCreate(file: string): string | undefined {
  let dir = dirname(target(file));
  let top: string | undefined;
  while (!existsSync(dir)) {
    top = dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return top;
}

export interface Change {
  path: string;
  /** The text the file holds now (null: none), put back if a later change fails. */
  before: string | null;
  /** The text it should hold; null deletes it. */
  next: string | null;
}

/** A change ready to be put in place: its new text in `tmp` beside `file` (none for a deletion). */
interface Staged {
  tmp: string;
  file: string;
  change: Change;
}

/** Applies every change or none; throws SetupUnwritable (nothing changed) when one cannot be made. */
export function commitAll(changes: Change[]): void {
  const staged: Staged[] = [];
  const made: string[] = [];
  const done: Staged[] = [];
  try {
    for (const change of changes) staged.push(stage(change, made));
    for (const s of staged) {
      if (s.change.next === null) rmSync(s.file, { force: true });
      else renameSync(s.tmp, s.file);
      done.push(s);
    }
  } catch (e) {
    rollBack(done, staged, made);
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    const at = (e as NodeJS.ErrnoException).path ?? '';
    throw new SetupUnwritable(`cannot write ${at || 'a file'} (${why}): nothing was written`);
  }
}

/**
 * Stages one change, touching no target: a deletion only checks it may delete; a new text is written to a
 * temporary file beside its target (same mode), creating its folders (recorded in `made`) first.
 */
function stage(change: Change, made: string[]): Staged {
  const file = target(change.path);
  if (change.next === null) {
    if (existsSync(file)) accessSync(dirname(file), constants.W_OK);
    return { tmp: '', file, change };
  }
  const top = folderToCreate(change.path);
  if (top) {
    mkdirSync(dirname(file), { recursive: true });
    made.push(top);
  }
  const mode = existsSync(file) ? statSync(file).mode & 0o7777 : undefined;
  if (mode !== undefined) accessSync(file, constants.W_OK);
  const tmp = `${file}.coord-${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, change.next, mode === undefined ? {} : { mode });
  return { tmp, file, change };
}

/** Puts back what was replaced (latest first), removes what was staged and the folders made for it. */
function rollBack(done: Staged[], staged: Staged[], made: string[]): void {
  for (const d of done.reverse()) {
    try {
      if (d.change.before === null) rmSync(d.file, { force: true });
      else writeFileSync(d.file, d.change.before);
    } catch {
      // best effort: the error below says what failed
    }
  }
  for (const s of staged) if (s.tmp) rmSync(s.tmp, { force: true });
  for (const dir of made.sort((a, b) => b.length - a.length)) removeEmptyTree(dir);
}

/** `dir` and the empty folders under it, when they hold nothing else. */
export function removeEmptyTree(dir: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e);
    if (lstatSync(p).isDirectory()) removeEmptyTree(p);
  }
  try {
    rmdirSync(dir);
  } catch {
    // not empty: something else lives there now
  }
}
