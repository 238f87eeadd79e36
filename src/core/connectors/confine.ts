/**
 * SPEC §16 "A grant is one board": a remote connector's every call acts on its board only. A task, lock or
 * message of another board named by id is `not_found` to it — in the same words as one that does not
 * exist, so it learns nothing of other boards — and no absolute path of the owner's machine (a work tree,
 * a file in one) is in what it is answered: each becomes its last segment (`/home/me/wt-a` → `wt-a`).
 *
 * `invoke` applies both when `ctx.confined_to` is set (the MCP edge sets it for a connector's session).
 */
import { CoordError, isCoordError } from '../errors.js';
import type { Ctx } from '../operation.js';

/** Input fields that name tasks (a string or a list of them), at any depth (a plan's tasks name them too). */
const TASK_FIELDS: ReadonlySet<string> = new Set(['task_id', 'parent', 'blocked_by', 'add', 'remove']);
/** Input fields that name a lock or a message. */
const LOCK_FIELDS: ReadonlySet<string> = new Set(['lock_id']);
const MESSAGE_FIELDS: ReadonlySet<string> = new Set(['message_id', 'ids']);
/** Every field of an input that names something by id: a test holds every tool's input to this list. */
export const CONFINED_FIELDS: ReadonlySet<string> = new Set([...TASK_FIELDS, ...LOCK_FIELDS, ...MESSAGE_FIELDS]);

interface Named {
  tasks: Set<string>;
  locks: Set<string>;
  messages: Set<string>;
  /** A plan's own refs: they name tasks of the plan, not existing ones. */
  refs: Set<string>;
}

/** The ids a field's value names: one string, or the strings of a list. */
const idsIn = (val: unknown): string[] =>
  typeof val === 'string' ? [val] : Array.isArray(val) ? val.filter((x) => typeof x === 'string') : [];

function collect(v: unknown, into: Named, depth = 0): void {
  if (depth > 4 || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (const item of v) collect(item, into, depth + 1);
    return;
  }
  for (const [k, val] of Object.entries(v)) {
    const ids = idsIn(val);
    if (k === 'ref' && typeof val === 'string') into.refs.add(val);
    else if (TASK_FIELDS.has(k)) for (const id of ids) into.tasks.add(id.replace(/^#/, ''));
    else if (LOCK_FIELDS.has(k)) for (const id of ids) into.locks.add(id);
    else if (MESSAGE_FIELDS.has(k)) for (const id of ids) into.messages.add(id);
    else collect(val, into, depth + 1);
  }
}

/** Throws `not_found` when the input names a task, lock or message of a board other than `board`. */
export async function confineInput(ctx: Ctx, board: string, input: unknown): Promise<void> {
  const named: Named = { tasks: new Set(), locks: new Set(), messages: new Set(), refs: new Set() };
  collect(input, named);
  for (const id of named.tasks) {
    if (named.refs.has(id)) continue;
    const task = await ctx.store.getTask(id);
    // One that does not exist is left to the operation, which answers it in its own words.
    if (task && task.board !== board) {
      throw new CoordError('not_found', `#${id} does not exist (or is private to another agent)`, { task_id: id });
    }
  }
  if (named.locks.size > 0) {
    const live = await ctx.store.listLocks();
    for (const id of named.locks) {
      const lock = live.find((l) => l.lock_id === id);
      if (lock && lock.board !== board) throw new CoordError('not_found', `no lock ${id}`, { lock_id: id });
    }
  }
  for (const id of named.messages) {
    const m = await ctx.store.getMessage(id, undefined);
    if (m && m.board !== board) {
      throw new CoordError('not_found', `no message ${id} (it does not exist, or it is not yours)`, { message_id: id });
    }
  }
}

/**
 * An absolute POSIX path (or `file://` URL) that starts a string or follows a space, quote, bracket or
 * separator — never the path part of an `https://` URL, a repository key (`src/a.ts`) or a branch.
 */
const ABSOLUTE = /(?<=^|[\s"'`([{<=,;:])(?:file:\/\/)?\/(?:[^\s/"'`()[\]{}<>,;|]+\/?)+/g;

export function withoutLocalPaths(s: string): string {
  return s.replace(ABSOLUTE, (p) => p.replace(/\/+$/, '').split('/').at(-1) ?? '');
}

/** Every string in `v`, at any depth, without local paths (a copy; `v` is left as it was). */
export function scrubbed<T>(v: T, depth = 0): T {
  if (typeof v === 'string') return withoutLocalPaths(v) as T;
  if (v === null || typeof v !== 'object' || depth > 16) return v;
  if (Array.isArray(v)) return v.map((x) => scrubbed(x, depth + 1)) as T;
  if (v instanceof Uint8Array) return v;
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) out[k] = scrubbed(val, depth + 1);
  return out as T;
}

/** A refusal as the connector hears it: the same code, its words and details without local paths. */
export function scrubbedError(err: unknown): unknown {
  if (!isCoordError(err)) return err;
  return new CoordError(err.code, withoutLocalPaths(err.message), scrubbed(err.details));
}
