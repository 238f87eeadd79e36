/**
 * A client's own `http` hook (SPEC §10 "the client's cheapest hook"): Claude Code and Qwen Code post the hook
 * input to `POST /v1/hooks/:client/:event` — no process starts per call — and read the answer as the hook's
 * JSON output (`pre-shell`, `post-shell`; `resume`, SPEC §19, for Qwen Code's UserPromptSubmit; `stop`, SPEC
 * §12, for `coord run`'s Claude Code). This route only
 * reads who and where from the input and the headers setup wrote, and puts core's answer in the client's words
 * (its profile's hook contract); the shell check's looks are the server's (../shell-check.ts), its rules core's
 * (shell-edits.ts).
 *
 * Who: the session id in the hook input, named as the client's MCP server names it (core/shared/agent-name.ts), or
 * `Coord-Agent` ($COORD_AGENT, interpolated by the client). Board: `Coord-Board` ($COORD_BOARD), else the
 * repository's. `Coord-Guard` ($COORD_GUARD): `off` skips, `warn` tells without blocking.
 *
 * A failure here (git missing, the store down) answers an error status: the client then goes on (its hooks
 * fail open); never a 200 that blocks.
 */
import { statSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { PATHS } from '../../api/paths.js';
import { type ClientKind, isClientKind, profileOf } from '../../clients/index.js';
import type { ClientEvent } from '../../clients/profile.js';
import { commandText, namedTrees } from '../../core/edits/shell-edits.js';
import { CoordError } from '../../core/errors.js';
import { invoke } from '../../core/invoke.js';
import { messageLine } from '../../core/messages/message-text.js';
import { STOP_MAX_MESSAGES, stopMail, stopNews } from '../../core/messages/stop-news.js';
import { DEFAULT_BOARD } from '../../core/model.js';
import type { Ctx } from '../../core/operation.js';
import { operations } from '../../core/operations.js';
import { agentOfKey } from '../../core/shared/agent-name.js';
import { boardForRepo, findWorkTree, otherWorkTrees } from '../../state-dir/board-name.js';
import { markTasksShown, shownTasks } from '../../state-dir/shown-tasks.js';
import { type ShellCall, ShellLooks } from '../shell-check.js';

const EVENTS: ReadonlySet<string> = new Set(['pre-shell', 'post-shell', 'resume', 'stop']);

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

/**
 * Who runs the command, where: null when it is not coord's to check — no session to name the agent, outside every
 * repository, or a work tree another user owns (git runs there as the daemon's user: its config is not ours to run).
 */
function shellCall(client: ClientKind, input: Record<string, unknown>, headers: IncomingHttpHeaders): ShellCall | null {
  const cwd = text(input.cwd);
  const tree = cwd ? findWorkTree(cwd) : null;
  const who = hookAgent(client, input, headers);
  if (!who || !tree || !ownWorkTree(tree.root)) return null;
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The agent and session of a hook call: a command hook names both (`Coord-Agent`, `Coord-Session`: the identity
 * it derived, client/agent-identity.ts); a client's own `http` hook gives its session id in the input, named as the
 * session's MCP server names it (or `Coord-Agent`, $COORD_AGENT).
 */
function hookAgent(client: ClientKind, input: Record<string, unknown>, headers: IncomingHttpHeaders) {
  const agent = header(headers['coord-agent']) || undefined;
  const named = header(headers['coord-session']);
  if (agent && UUID.test(named)) return { agent, sessionId: named };
  const session = text(input[profileOf(client).identity.hookField ?? 'session_id']) ?? text(input.session_id);
  return session ? agentOfKey(client, `${client}:${session}`, agent) : null;
}

/**
 * SPEC §19: the agent goes on (its client's prompt hook; Qwen Code's runs before every model call): whatever it
 * waited for was answered. Going on is the agent's on every board; nothing to check, nothing to say.
 */
function resume(ctx: Ctx, client: ClientKind, input: Record<string, unknown>, headers: IncomingHttpHeaders): void {
  const who = hookAgent(client, input, headers);
  if (who) ctx.presence.wait({ agent: who.agent, board: '', message: null, at: 0 });
}

/** Who the hook's session is (its client's session id named as the MCP server names it), on which board. */
function sessionAgent(client: ClientKind, input: Record<string, unknown>, headers: IncomingHttpHeaders) {
  const who = hookAgent(client, input, headers);
  if (!who) return null;
  const { agent } = who;
  const cwd = text(input.cwd);
  const tree = cwd ? findWorkTree(cwd) : null;
  return { agent, board: header(headers['coord-board']) || (tree ? boardForRepo(tree.home) : DEFAULT_BOARD) };
}

/**
 * SPEC §10, §12: the agent would stop. Its turn ended (whatever it waited for was answered); news it has not
 * seen — a message never shown (recorded `via: stop` now), a task for it alone — holds the stop once, as the
 * command hook does (hooks/stop.ts; the rule is core/messages/stop-news.ts). Null: let it stop.
 */
async function stopNewsFor(
  ctx: Ctx,
  client: ClientKind,
  input: Record<string, unknown>,
  headers: IncomingHttpHeaders,
  stateDir: string | undefined,
): Promise<string | null> {
  const who = sessionAgent(client, input, headers);
  if (!who) return null;
  await invoke(operations.agentWaiting, ctx, { ...who, waiting: null }).catch(() => null);
  if (header(headers['coord-guard']).toLowerCase() === 'off' || input.stop_hook_active === true) return null;
  // First the messages: the inbox would record them as shown `via: inbox`, and they would never be news here. A
  // look first, so only those that hold the stop (core's worthATurn) are recorded as shown.
  const q = { ...who, via: 'stop' as const, limit: STOP_MAX_MESSAGES };
  const mail = await stopMail((more) => invoke(operations.pendingMessages, ctx, { ...q, ...more }));
  const inbox = await invoke(operations.inbox, ctx, who);
  const now = ctx.clock.now();
  const news = stopNews({
    agent: who.agent,
    mail: { lines: mail.messages.map((m) => messageLine(m, now)), unread: mail.unread },
    tasks: inbox.tasks,
    seen: stateDir ? shownTasks(stateDir, who.agent, who.board) : new Set(),
  });
  if (stateDir) markTasksShown(stateDir, who.agent, who.board, news.shown);
  return news.reason;
}

export function registerHookRoutes(
  app: FastifyInstance,
  ctx: Ctx,
  opts: { stateDir?: string | undefined } = {},
  looks = new ShellLooks(),
): void {
  app.post(PATHS.hook, async (req, reply) => {
    const { client, event } = req.params as { client: string; event: string };
    if (!isClientKind(client) || !EVENTS.has(event))
      throw new CoordError('not_found', `no hook ${event} for client ${client}`);
    const input = (req.body ?? {}) as Record<string, unknown>;
    if (typeof input !== 'object' || Array.isArray(input))
      throw new CoordError('invalid_request', 'the hook input must be a JSON object');
    const profile = profileOf(client);
    const answer = (s: { stdout: string }) =>
      reply
        .code(200)
        .type('application/json')
        .send(s.stdout.trim() || '{}');
    const mode = header(req.headers['coord-guard']).toLowerCase();
    if (event === 'resume') {
      resume(ctx, client, input, req.headers);
      return answer({ stdout: '{}' });
    }
    if (event === 'stop') {
      const reason = await stopNewsFor(ctx, client, input, req.headers, opts.stateDir);
      return answer(reason === null ? { stdout: '{}' } : profile.hooks.keepGoing(reason, 'stop'));
    }
    const call = mode === 'off' ? null : shellCall(client, input, req.headers);
    const shell = await shellVerdict(ctx, looks, call, event === 'pre-shell');
    // A command hook (hooks/shell-edits.ts) asks for the verdict itself, and whether a look was kept, and speaks
    // to its client in its own words: `Coord-Answer: verdict` → {looked, reason}.
    if (header(req.headers['coord-answer']).toLowerCase() === 'verdict') return reply.code(200).send(shell);
    if (!shell.reason) return answer({ stdout: '{}' });
    if (mode === 'warn')
      return answer({ stdout: JSON.stringify({ systemMessage: `coord (COORD_GUARD=warn): ${shell.reason}` }) });
    return answer(profile.hooks.afterShell(shell.reason, event as ClientEvent));
  });
}

/**
 * The shell check of one hook call: before the command a look kept, after it the paths it changed decided.
 * `looked`: whether a look was kept (before) or compared with (after); `reason`: what to tell the model.
 */
async function shellVerdict(
  ctx: Ctx,
  looks: ShellLooks,
  call: ShellCall | null,
  before: boolean,
): Promise<{ looked: boolean; reason: string | null }> {
  if (!call) return { looked: false, reason: null };
  if (before) {
    await looks.before(ctx, call);
    return { looked: true, reason: null };
  }
  // SPEC §19: a shell command ran, so a permission prompt the agent waited at was answered.
  ctx.presence.wait({ agent: call.agent, board: call.board, message: null, at: 0 });
  const compared = await looks.after(ctx, call);
  return { looked: compared !== null, reason: compared?.reason ?? null };
}
