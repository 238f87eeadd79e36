/**
 * A client's own `http` hook (SPEC §10 "the client's cheapest hook"): Claude Code and Qwen Code post the hook
 * input to `POST /v1/hooks/:client/:event` — no process starts per call — and read the answer as the hook's
 * JSON output. This route only reads who and where from the input and the headers setup wrote, and puts
 * core's answer in the client's words (its profile's hook contract); the shell check is core's (shell-check.ts).
 *
 * Who: the session id in the hook input, named as the client's MCP server names it (core/agent-name.ts), or
 * `Coord-Agent` ($COORD_AGENT, interpolated by the client). Board: `Coord-Board` ($COORD_BOARD), else the
 * repository's. `Coord-Guard` ($COORD_GUARD): `off` skips, `warn` tells without blocking.
 *
 * A failure here (git missing, the store down) answers an error status: the client then goes on (its hooks
 * fail open); never a 200 that blocks.
 */
import { statSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { PATHS } from '../../api/paths.js';
import { type ClientKind, isClientKind, profileOf } from '../../clients/index.js';
import type { ClientEvent } from '../../clients/profile.js';
import { agentOfKey } from '../../core/agent-name.js';
import { CoordError } from '../../core/errors.js';
import type { Ctx } from '../../core/operation.js';
import { ShellLooks } from '../../core/shell-check.js';
import { commandText, namedTrees } from '../../core/shell-edits.js';
import { boardForRepo, findWorkTree, otherWorkTrees, type WorkTree } from '../../state-dir/board-name.js';

const EVENTS: ReadonlySet<string> = new Set(['pre-shell', 'post-shell']);

/** Whether the daemon's own user owns the work tree's folder (always true where there are no uids). */
function ownWorkTree(root: string): boolean {
  const uid = process.getuid?.();
  if (uid === undefined) return true;
  try {
    return statSync(root).uid === uid;
  } catch {
    return false;
  }
}

const header = (v: string | string[] | undefined): string => (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).trim();
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The route's client and event, and the hook input (a JSON object). */
function parseHook(
  params: unknown,
  body: unknown,
): { client: ClientKind; event: string; input: Record<string, unknown> } {
  const { client, event } = params as { client: string; event: string };
  if (!isClientKind(client) || !EVENTS.has(event))
    throw new CoordError('not_found', `no hook ${event} for client ${client}`);
  const input = (body ?? {}) as Record<string, unknown>;
  if (typeof input !== 'object' || Array.isArray(input))
    throw new CoordError('invalid_request', 'the hook input must be a JSON object');
  return { client, event, input };
}

/** The shell call the hook reports: who runs it, on which board, in which work trees. */
function shellCall(
  client: ClientKind,
  session: string,
  tree: WorkTree,
  headers: Record<string, string | string[] | undefined>,
  input: Record<string, unknown>,
) {
  const who = agentOfKey(client, `${client}:${session}`, header(headers['coord-agent']) || undefined);
  return {
    agent: who.agent,
    sessionId: who.sessionId,
    board: header(headers['coord-board']) || boardForRepo(tree.home),
    worktree: tree.root,
    callId: text(input.tool_use_id) ?? text(input.toolUseId) ?? '',
    // SPEC §14: the other work trees the command names are looked at too (the work tree of an edit is the path's).
    others: namedTrees(commandText(input), otherWorkTrees(tree)).filter(ownWorkTree),
  };
}

export function registerHookRoutes(app: FastifyInstance, ctx: Ctx, looks = new ShellLooks()): void {
  app.post(PATHS.hook, async (req, reply) => {
    const { client, event, input } = parseHook(req.params, req.body);
    const profile = profileOf(client);
    const answer = (s: { stdout: string }) =>
      reply
        .code(200)
        .type('application/json')
        .send(s.stdout.trim() || '{}');
    const mode = header(req.headers['coord-guard']).toLowerCase();
    const session = text(input[profile.identity.hookField ?? 'session_id']) ?? text(input.session_id);
    const cwd = text(input.cwd);
    const tree = cwd ? findWorkTree(cwd) : null;
    // Not coord's to check: no session to name the agent, outside every repository, a work tree another user
    // owns (git runs there as the daemon's user: its config is not ours to run), or switched off.
    if (mode === 'off' || !session || !tree || !ownWorkTree(tree.root)) return answer({ stdout: '{}' });
    const call = shellCall(client, session, tree, req.headers, input);
    if (event === 'pre-shell') {
      await looks.before(ctx, call);
      return answer({ stdout: '{}' });
    }
    // SPEC §19: a shell command ran, so a permission prompt the agent waited at was answered.
    ctx.presence.wait({ agent: call.agent, board: call.board, message: null, at: 0 });
    const reason = await looks.after(ctx, call);
    if (!reason) return answer({ stdout: '{}' });
    if (mode === 'warn')
      return answer({ stdout: JSON.stringify({ systemMessage: `coord (COORD_GUARD=warn): ${reason}` }) });
    return answer(profile.hooks.afterShell(reason, event as ClientEvent));
  });
}
