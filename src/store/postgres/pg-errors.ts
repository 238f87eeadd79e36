/**
 * PostgreSQL failures as coord answers. Losing the database is an answer, not a crash: connection failures become
 * CoordError('store_unavailable') (HTTP 503, CLI exit 3) while the pool and the
 * LISTEN connection reconnect by themselves. Every operation is one
 * transaction, so a failure mid-way leaves nothing half-written.
 */
import { CoordError } from '../../core/errors.js';

const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
const NAMES = new Set(['ENOTFOUND', 'EAI_AGAIN']);
// admin_shutdown, crash_shutdown, cannot_connect_now (starting up / recovering), too_many_connections.
const SERVER = new Set(['57P01', '57P02', '57P03', '53300']);
const MESSAGES =
  /Connection terminated|Connection ended|not queryable|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery)/i;

export function isConnectionError(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const code = String((e as { code?: unknown }).code ?? '');
  if (NETWORK.has(code) || NAMES.has(code) || SERVER.has(code) || code.startsWith('08')) return true;
  if (e instanceof AggregateError) return e.errors.some(isConnectionError);
  return MESSAGES.test(String((e as { message?: unknown }).message ?? ''));
}

/** A serialization failure or deadlock: the transaction did nothing and may simply run again. */
export const isRetryable = (e: unknown): boolean =>
  ['40001', '40P01'].includes(String((e as { code?: unknown } | null)?.code ?? ''));

const RETRYING = 'coord is retrying by itself; try again in a moment';

export function storeUnavailable(e: unknown, next = RETRYING): CoordError {
  const reason = e instanceof Error && e.message ? e.message : 'connection failed';
  return new CoordError('store_unavailable', `PostgreSQL is unreachable (${reason}) — ${next}`);
}

// PostgreSQL refuses NUL in text (invalid byte sequence, 22021). core/schemas.ts refuses it in every text
// field first, the same for both stores; this is the backstop for a field that ever slips past it.
const nulRefused = () =>
  new CoordError('invalid_request', 'invalid input: text may not contain NUL (\\u0000) characters', {
    issues: [{ path: '(body)', message: 'text may not contain NUL (\\u0000) characters' }],
  });

// A server that answers but refuses to write: the transaction did nothing, and the user has something to fix.
const REFUSED: Record<string, string> = {
  '25006':
    'the database is read-only (a hot standby, or default_transaction_read_only is on) — point --store at the primary, or make it writable; nothing was written, retry',
  '53100': 'the database server is out of disk space — free space on its disk; nothing was written, retry',
};

/** Runs one store operation, turning a lost database connection into store_unavailable. */
export async function guarded<T>(fn: () => Promise<T>, next = RETRYING): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (isConnectionError(e)) throw storeUnavailable(e, next);
    const code = String((e as { code?: unknown } | null)?.code ?? '');
    if (code === '22021') throw nulRefused();
    const refused = REFUSED[code];
    if (refused) throw new CoordError('store_unavailable', `PostgreSQL refuses writes: ${refused}`);
    throw e;
  }
}
