/**
 * The hooks' entry point: `coord hook <event> [--client C] [--state DIR]` and
 * `coord prime`, dispatched by src/main.ts before the CLI loads, so an edit
 * pays for Node's start and one or two local HTTP calls — never for fastify,
 * the MCP SDK, zod or commander. Only pre-edit, run on every edit, is loaded
 * with this file; every other event's module runs only when that event does
 * (a dynamic import: unbundled, a file loaded then; in dist/hook-bundle/'s one
 * file, code run then — see scripts/bundle-hooks.mjs), so an edit never runs
 * git's shell-edit snapshots, the commit guard or the message hooks.
 */
import { type AgentIdentity, identify } from '../client/agent-identity.js';
import { CLIENT_KINDS, type ClientKind, detectClient, isClientKind, profileOf } from '../clients/index.js';
import type { ClientProfile } from '../clients/profile.js';
import { resolveStateDir } from '../state-dir/state-dir.js';
import { givenBoard, resolveAgent, resolveBoard } from '../state-dir/who.js';
import { type HookEvent, type Spoken, speak } from './answer.js';
import { type HookDaemon, hookDaemon } from './daemon.js';
import { type GuardMode, guardMode } from './guard-mode.js';
import { BadHookInput, type HookInput, readInput, str, toolCall } from './input.js';
import { HOOK_TIMEOUT_S, preEdit } from './pre-edit.js';

const EVENTS: readonly HookEvent[] = [
  'pre-edit',
  'session-start',
  'stop',
  'pre-commit',
  'pre-shell',
  'post-shell',
  'notify',
  'resume',
];

interface Args {
  event: HookEvent;
  client: ClientKind;
  state?: string;
  json: boolean;
  /** The client's hook timeout in seconds, as setup wrote it: a busy daemon is waited for until 2 s before it. */
  timeoutS?: number;
}

const USAGE = `usage: coord hook pre-edit|session-start|stop|pre-commit|pre-shell|post-shell|notify|resume [--client ${CLIENT_KINDS.join('|')}] [--state DIR] [--timeout S]`;

export function parseArgs(argv: string[], env: NodeJS.ProcessEnv): Args | string {
  const [command, ...rest] = argv;
  let event: string | undefined = command === 'prime' ? 'session-start' : undefined;
  const out: Partial<Args> = { json: false };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === '--client') out.client = rest[++i] as ClientKind;
    else if (a === '--state') out.state = rest[++i] ?? '';
    else if (a === '--json') out.json = true;
    else if (a === '--timeout' && /^\d{1,4}$/.test(rest[i + 1] ?? '') && Number(rest[i + 1]) >= 3)
      out.timeoutS = Number(rest[++i]);
    else if (event === undefined && a !== undefined && !a.startsWith('-')) event = a;
    else return `${USAGE}\nunexpected argument: ${a}`;
  }
  if (!EVENTS.includes(event as HookEvent)) return USAGE;
  const client = out.client ?? detectClient(env) ?? 'claude';
  if (!isClientKind(client)) return `${USAGE}\nunknown client: ${String(client)}`;
  return {
    event: event as HookEvent,
    client,
    json: out.json ?? false,
    ...(out.state ? { state: out.state } : {}),
    ...(out.timeoutS ? { timeoutS: out.timeoutS } : {}),
  };
}

/**
 * `given`: the hook's input when it does not come on stdin — a plugin that runs this hook inside its
 * client (src/plugins/hook-call.ts) hands the tool call over directly.
 */
export async function runHook(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  given?: HookInput,
): Promise<Spoken> {
  const args = parseArgs(argv, env);
  if (typeof args === 'string') return { code: 1, stdout: '', stderr: `${args}\n` };
  const stateDir = resolveStateDir(args.state, env);
  const mode = guardMode(env);
  let link: HookDaemon | undefined;
  const linked = (session?: string) => () => {
    link ??= hookDaemon(stateDir, session);
    return link;
  };
  try {
    return await dispatch(args, env, stateDir, mode, linked, given);
  } finally {
    link?.close();
  }
}

async function dispatch(
  args: Args,
  env: NodeJS.ProcessEnv,
  stateDir: string,
  mode: GuardMode,
  linked: (session?: string) => () => HookDaemon,
  given?: HookInput,
): Promise<Spoken> {
  if (args.event === 'pre-commit') {
    const { preCommit } = await import('./pre-commit.js');
    const r = await preCommit(env, mode, linked());
    return { code: r.code, stdout: '', stderr: r.message ? `${r.message}\n` : '' };
  }
  const profile = profileOf(args.client);
  const read =
    given ??
    (await readInput().catch((e: unknown): HookInput => {
      // Only an edit's check needs the input; context and stop hooks go on without it.
      if (e instanceof BadHookInput && args.event !== 'pre-edit') return {};
      throw e;
    }));
  // Copilot CLI's camelCase payloads name the session `sessionId` (its Notification's documented shape).
  const raw =
    read.session_id === undefined && typeof read.sessionId === 'string'
      ? { ...read, session_id: read.sessionId }
      : read;
  const input = asCoordReads(profile, raw);
  const cwd = str(input.cwd) ?? (env.CLAUDE_PROJECT_DIR || process.cwd());
  // A plugin that runs in a child of its client (Cline's sandbox) names the process whose parent is the client;
  // one that runs this hook inside the client itself (OpenCode, Kilo, Pi) names the client.
  const from = Number(env.COORD_HOOK_FROM_PID);
  const inside = Number(env.COORD_HOOK_CLIENT_PID);
  const identity: AgentIdentity | null = identify(args.client, env, {
    input: raw,
    ...(Number.isInteger(from) && from > 1 ? { pid: from } : {}),
    ...(Number.isInteger(inside) && inside > 1 ? { client: inside } : {}),
  });
  const daemon = linked(identity?.sessionId);
  if (args.event === 'pre-edit') {
    if (!guards(profile, str(input.tool_name))) return { code: 0, stdout: '', stderr: '' };
    return speak(
      args.client,
      'pre-edit',
      await preEdit(input, { mode, cwd, identity, daemon, board: givenBoard(undefined, env), timeoutS: args.timeoutS }),
    );
  }
  if (args.event === 'pre-shell' || args.event === 'post-shell') {
    const { postShell, preShell } = await import('./shell-edits.js');
    const shell = {
      client: args.client,
      mode,
      cwd,
      stateDir,
      identity,
      daemon,
      board: givenBoard(undefined, env),
      deadline: Date.now() + ((args.timeoutS ?? HOOK_TIMEOUT_S) - 2) * 1000,
    };
    if (args.event === 'pre-shell') return speak(args.client, 'pre-shell', await preShell(input, shell));
    return speak(args.client, 'post-shell', await postShell(input, shell));
  }
  const agent = resolveAgent({ env, session: identity?.agent, fallback: `${args.client}#unknown` });
  const board = resolveBoard(undefined, env, cwd);
  if (args.event === 'notify' || args.event === 'resume') {
    const { tellWaiting } = await import('./waiting.js');
    await tellWaiting(daemon, {
      agent,
      board,
      waiting: args.event === 'notify' ? waitingText(raw, profile.title) : null,
    });
    return { code: 0, stdout: '', stderr: '' };
  }
  if (args.event === 'session-start') {
    const { primeText } = await import('./prime.js');
    const text = await primeText(agent, board, daemon);
    return speak(args.json ? 'gemini' : args.client, 'session-start', { kind: 'context', text });
  }
  // The turn ended: whatever the agent waited for was answered (an idle prompt may follow, and says so).
  const { tellWaiting } = await import('./waiting.js');
  await tellWaiting(daemon, { agent, board, waiting: null });
  if (mode === 'off') return { code: 0, stdout: '', stderr: '' };
  const { stopCheck } = await import('./stop.js');
  return speak(args.client, 'stop', await stopCheck(input, { agent, board, stateDir }, daemon));
}

/**
 * What the client's notification says (Claude Code, Qwen Code, Copilot CLI, Gemini CLI: `message`; else
 * `title`); Codex's PermissionRequest says nothing itself: the tool and the command it asks to run.
 */
function waitingText(raw: HookInput, client: string): string {
  const said = str(raw.message) ?? str(raw.title);
  // Gemini CLI's ToolPermission names the tool's dialog ("Tool Confirm Shell Command requires execution"); its
  // details say what: the command, the file.
  const details = raw.details && typeof raw.details === 'object' ? (raw.details as HookInput) : {};
  const what = str(details.command) ?? str(details.fileName);
  if (said) return (what ? `${said}: ${what}` : said).slice(0, 2000);
  const tool = str(raw.tool_name);
  if (!tool) return 'waiting for you';
  const input = raw.tool_input && typeof raw.tool_input === 'object' ? (raw.tool_input as HookInput) : {};
  const asked = str(input.command) ?? str(input.description);
  return `${client} needs your permission to use ${tool}${asked ? `: ${asked}` : ''}`.slice(0, 2000);
}

/** The hook input with the tool call where coord's hooks read it (`tool_name`, `tool_input` an object). */
function asCoordReads(profile: ClientProfile, raw: HookInput): HookInput {
  const call = toolCall(raw, profile.hooks.input);
  return { ...raw, ...(call.name ? { tool_name: call.name } : {}), ...(call.args ? { tool_input: call.args } : {}) };
}

/**
 * Whether the pre-edit hook checks this tool. Where the client runs it for every tool (Cursor),
 * tools the profile names as read-only are skipped — by exact name, never a prefix (`search_replace`
 * writes); any other tool that names a path is checked.
 */
function guards(profile: ClientProfile, tool: string | undefined): boolean {
  if (!profile.tools.hookSeesEveryTool || tool === undefined) return true;
  return !profile.tools.readOnly.includes(tool);
}

/**
 * Run, say it, exit. A hook that fails (input it cannot read, an answer that
 * is not the daemon's) lets the client go on with one warning line — except
 * under COORD_GUARD=strict, where an edit or commit that could not be checked
 * is refused (SPEC §10: strict refuses what it cannot check, every failure).
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const spoken = await hookAnswer(argv, env);
  // Only what is written makes its stream (src/main.ts leaves them to the hooks): a reader that closed the pipe
  // is the reader's choice — exit 0, quietly, as every command does (issue 26).
  for (const [out, text] of [
    [process.stdout, spoken.stdout],
    [process.stderr, spoken.stderr],
  ] as const) {
    if (!text) continue;
    out.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(0);
      throw e;
    });
    out.write(text);
  }
  process.exitCode = spoken.code;
}

/** What `coord hook …` says and exits with, as `main` writes it; `given` as in runHook. */
export async function hookAnswer(argv: string[], env: NodeJS.ProcessEnv, given?: HookInput): Promise<Spoken> {
  try {
    return await runHook(argv, env, given);
  } catch (e) {
    return failed(argv, env, (e as Error).message);
  }
}

function failed(argv: string[], env: NodeJS.ProcessEnv, why: string): Spoken {
  const args = parseArgs(argv, env);
  const strict = guardMode(env) === 'strict' && typeof args !== 'string';
  if (strict && args.event === 'pre-edit')
    return speak(args.client, 'pre-edit', {
      kind: 'deny',
      reason: `coord_unreachable: the edit could not be checked (${why}) — COORD_GUARD=strict refuses it`,
    });
  if (strict && args.event === 'pre-commit')
    return { code: 1, stdout: '', stderr: `coord guard: ${why} — COORD_GUARD=strict refuses the commit\n` };
  return { code: 0, stdout: '', stderr: `coord hook: ${why}; allowed\n` };
}
