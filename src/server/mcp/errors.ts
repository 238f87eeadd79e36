/**
 * The one map from a failure to what a model reads (STYLE rule 8): a failing
 * tool is `isError: true` with text that starts with the error code and says
 * what to do next. Protocol faults stay JSON-RPC errors; that is the SDK's job.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { CoordError, isCoordError } from '../../core/errors.js';

/**
 * Where a tool result carries the operation's output for programs. Not
 * `structuredContent`: Claude Code and Codex hand the model
 * `JSON.stringify(structuredContent)` instead of the text when both are
 * present (SPEC §5), so the short text would never be read. Some clients show
 * a result's `_meta` to their model: for them it is left out (toolError, server.ts).
 */
export const DATA_META = 'coord/data';

/** Anything that is not a CoordError is a bug: the model sees `internal`, never a stack trace. */
export function toCoordError(err: unknown): CoordError {
  return isCoordError(err) ? err : new CoordError('internal', 'internal error in the coord daemon — see its log');
}

/**
 * `withData: false` for a client whose model would read the data as JSON (SPEC §17: Cline shows its
 * model every result object whole): its model reads the text alone; every other client, and every
 * program, gets the data in `_meta`.
 */
export function toolError(err: CoordError, withData = true): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${err.code}: ${err.message}` }],
    ...(withData ? { _meta: { [DATA_META]: { error: err.toJSON() } } } : {}),
  };
}

/**
 * A failure for a client that shows its model a failing tool's whole result object inside a long
 * error line of its own (SPEC §17: Gemini CLI and Qwen Code, `failing-object` — their wrapper alone
 * is 184 and 306 bytes): the same text as a result that is not flagged `isError`, which these clients
 * hand their model as the text alone. The text still starts with the error code, and the error for
 * programs stays in `_meta`, which they do not show on this path.
 */
export function toolErrorAsText(err: CoordError): CallToolResult {
  return {
    content: [{ type: 'text', text: `${err.code}: ${err.message}` }],
    _meta: { [DATA_META]: { error: err.toJSON() } },
  };
}
