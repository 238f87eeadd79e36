/**
 * The fields every room's shapes are made of (one zod schema per shape): text that stores keep as written,
 * names and ids, leases, limits. Each room's inputs are in the room (board/task-schemas.ts,
 * edits/lock-schemas.ts, integration/integration-schemas.ts, …); schemas.ts assembles the set.
 */
import { z } from 'zod';
import { DEFAULT_BOARD, DEFAULT_LEASE_S, DEFAULT_TTL_S, MAX_LEASE_S, MIN_LEASE_S, TASK_STATES } from './model.js';
import { NAME_RE } from './shared/names.js';

/** A lone UTF-16 surrogate: stores write text as UTF-8, where it would silently become U+FFFD. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const NUL_MESSAGE = 'may not contain NUL (\\u0000) characters';
export const SURROGATE_MESSAGE = 'must be valid Unicode (it contains a lone UTF-16 surrogate)';

/**
 * Text a store keeps exactly as given, the same on both stores: PostgreSQL
 * refuses NUL in text (SQLite would keep it), and both would write a lone
 * surrogate as U+FFFD — two different idempotency keys would then read back
 * as one. So every free-text field refuses both, naming itself.
 */
export const text = (base = z.string()) =>
  base.refine((s) => !s.includes('\0'), NUL_MESSAGE).refine((s) => !LONE_SURROGATE.test(s), SURROGATE_MESSAGE);

/**
 * Control characters other than tab (NUL is refused by `text` already): a one-line field is printed into
 * terminals and models' inboxes, where ESC sequences would repaint a human's screen and a newline would
 * forge an inbox line of its own.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0001-\u0008\u000a-\u001f\u007f-\u009f]/;
export const CONTROL_MESSAGE = 'is one line: it may not contain control characters (newlines, ESC, …)';

/** Text shown on one line (a title, a label, a reason); `base` may trim first. */
export const line = (base = z.string()) => text(base).refine((s) => !CONTROL.test(s), CONTROL_MESSAGE);

export const AgentName = z
  .string()
  .regex(NAME_RE, 'must be 1–64 characters of A-Z a-z 0-9 . _ : # @ / -')
  .describe('Your agent name, e.g. "claude-code#a1f3".');
export const BoardName = z
  .string()
  .regex(NAME_RE, 'must be 1–64 characters of A-Z a-z 0-9 . _ : # @ / -')
  .describe('Board (namespace of tasks and locks), usually one per repository.');
export const TaskId = z
  .string()
  .regex(/^#?[A-Za-z0-9_-]{1,12}$/, 'must be a task id such as "k3m9x2qa"')
  .transform((s) => s.replace(/^#/, ''))
  .describe('The task id, e.g. "k3m9x2qa".');
export const ClaimId = text().min(1).max(100).describe('The claim_id returned by the claim: your fencing token.');
export const LeaseS = z
  .int()
  .min(MIN_LEASE_S)
  .max(MAX_LEASE_S)
  .describe(`Lease in seconds (${MIN_LEASE_S}–${MAX_LEASE_S}, default ${DEFAULT_LEASE_S}); heartbeat before it ends.`);
export const TaskStateSchema = z.enum(TASK_STATES);
export const ResultStatusSchema = z.enum(['completed', 'failed']);
export const MAX_LABELS = 20;
export const Label = line().min(1).max(40);
export const Kind = z.string().regex(/^[A-Za-z0-9._-]{1,32}$/, 'must be 1–32 characters of A-Z a-z 0-9 . _ -');

export const MAX_JSON_DEPTH = 100;

/**
 * Why a value is not JSON coord can keep, or null. Iterative, so a hostile
 * million-deep array is an answer, not a stack overflow; objects are walked
 * as given, so a key such as "__proto__" is kept like any other.
 */
function jsonProblem(value: unknown): { path: (string | number)[]; message: string } | null {
  const todo: { v: unknown; path: (string | number)[] }[] = [{ v: value, path: [] }];
  for (let next = todo.pop(); next; next = todo.pop()) {
    const { v, path } = next;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { path, message: 'numbers must be finite' };
      continue;
    }
    const proto = typeof v === 'object' ? Object.getPrototypeOf(v) : undefined;
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) {
      return { path, message: 'is not a JSON value' };
    }
    if (path.length >= MAX_JSON_DEPTH) {
      return { path: path.slice(0, 3), message: `is nested deeper than ${MAX_JSON_DEPTH} levels` };
    }
    const entries: [string | number, unknown][] = Array.isArray(v) ? [...v.entries()] : Object.entries(v as object);
    for (const [k, x] of entries) todo.push({ v: x, path: [...path, k] });
  }
  return null;
}

/** Any JSON value, kept exactly as sent (results are stored as JSON text on both stores, NUL and all). */
export const JsonValue = z.unknown().superRefine((v, ctx) => {
  const problem = jsonProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
});

export const MAX_TITLE_CHARS = 500;
export const MAX_BODY_CHARS = 65_536;
export const MAX_IDEMPOTENCY_KEY_CHARS = 200;

/** A boolean that may arrive as a query string ("true" / "false"). */
export const QueryBool = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

export const MAX_NOTE_BYTES = 8192;
/** A note or message text: free text (newlines allowed), at most 8 KiB of UTF-8. */
export const NoteText = text()
  .min(1)
  .refine((s) => Buffer.byteLength(s) <= MAX_NOTE_BYTES, `must be at most ${MAX_NOTE_BYTES} bytes of UTF-8`);
export const NoteField = NoteText.describe(
  'A note on the task, written in the same transaction (what was done, what is left): the next agent reads it.',
);

export const DEFAULTS = { board: DEFAULT_BOARD, lease_s: DEFAULT_LEASE_S, ttl_s: DEFAULT_TTL_S } as const;

/** SPEC §12: a message id (message-schemas.ts has the notes and messages operations). */
export const MessageId = z
  .string()
  .regex(/^m[a-z0-9]{1,24}$/, 'must be a message id such as "m3k9x2qab"')
  .describe('The message id, e.g. "m3k9x2qab".');
