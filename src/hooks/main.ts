/**
 * The hooks' entry point: `coord hook <event> [--client C] [--state DIR]` and
 * `coord prime`, dispatched by src/main.ts before the CLI loads, so an edit
 * pays for Node's start and one or two local HTTP calls — never for fastify,
 * the MCP SDK, zod or commander.
 */
import { type AgentIdentity, type ClientKind, identify, isClientKind } from '../client/agent-identity.js';
import { resolveBoard } from '../state-dir/board-name.js';
import { resolveStateDir } from '../state-dir/state-dir.js';
import { type HookEvent, type Spoken, speak } from './answer.js';
import { type HookDaemon, hookDaemon } from './daemon.js';
import { type GuardMode, guardMode } from './guard-mode.js';
import { BadHookInput, type HookInput, readInput, str } from './input.js';
import { preCommit } from './pre-commit.js';
import { preEdit } from './pre-edit.js';
import { primeText } from './prime.js';
import { stopCheck } from './stop.js';

const EVENTS: readonly HookEvent[] = ['pre-edit', 'session-start', 'stop', 'pre-commit'];

interface Args {
  event: HookEvent;
  client: ClientKind;
  state?: string;
  json: boolean;
}

const USAGE =
  'usage: coord hook pre-edit|session-start|stop|pre-commit [--client claude|codex|gemini|cursor] [--state DIR]';

export function parseArgs(argv: string[], env: NodeJS.ProcessEnv): Args | string {
  const [command, ...rest] = argv;
  let event: string | undefined = command === 'prime' ? 'session-start' : undefined;
  const out: Partial<Args> = { json: false };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === '--client') out.client = rest[++i] as ClientKind;
    else if (a === '--state') out.state = rest[++i];
    else if (a === '--json') out.json = true;
    else if (event === undefined && a !== undefined && !a.startsWith('-')) event = a;
    else return `${USAGE}\nunexpected argument: ${a}`;
  }
  if (!EVENTS.includes(event as HookEvent)) return USAGE;
  const client = out.client ?? detectClient(env);
  if (!isClientKind(client)) return `${USAGE}\nunknown client: ${String(client)}`;
  return { event: event as HookEvent, client, json: out.json ?? false, ...(out.state ? { state: out.state } : {}) };
}

/** Without --client: what the environment says (Gemini CLI also sets CLAUDE_PROJECT_DIR, so it goes first). */
function detectClient(env: NodeJS.ProcessEnv): ClientKind {
  if (env.GEMINI_SESSION_ID || env.GEMINI_CLI) return 'gemini';
  if (env.CLAUDE_CODE_SESSION_ID || env.CLAUDECODE) return 'claude';
  if (env.CODEX_SANDBOX || env.CODEX_HOME || env.CODEX_THREAD_ID) return 'codex';
  if (env.CURSOR_TRACE_ID || env.CURSOR_AGENT) return 'cursor';
  return 'claude';
}

export async function runHook(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<Spoken> {
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
    return await dispatch(args, env, stateDir, mode, linked);
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
): Promise<Spoken> {
  if (args.event === 'pre-commit') {
    const r = await preCommit(env, mode, linked());
    return { code: r.code, stdout: '', stderr: r.message ? `${r.message}\n` : '' };
  }
  const input = await readInput().catch((e: unknown): HookInput => {
    // Only an edit's check needs the input; context and stop hooks go on without it.
    if (e instanceof BadHookInput && args.event !== 'pre-edit') return {};
    throw e;
  });
  const cwd = str(input.cwd) ?? (env.CLAUDE_PROJECT_DIR || process.cwd());
  const identity: AgentIdentity | null = identify(args.client, env);
  const daemon = linked(identity?.sessionId);
  if (args.event === 'pre-edit') {
    return speak(
      args.client,
      'pre-edit',
      await preEdit(input, { mode, cwd, identity, daemon, board: env.COORD_BOARD }),
    );
  }
  const agent = identity?.agent ?? env.COORD_AGENT ?? `${args.client}#unknown`;
  const board = resolveBoard(undefined, env, cwd);
  if (args.event === 'session-start') {
    const text = await primeText(agent, board, daemon);
    return speak(args.json ? 'gemini' : args.client, 'session-start', { kind: 'context', text });
  }
  if (mode === 'off') return { code: 0, stdout: '', stderr: '' };
  return speak(args.client, 'stop', await stopCheck(input, { agent, board, stateDir }, daemon));
}

/**
 * Run, say it, exit. A hook that fails (input it cannot read, an answer that
 * is not the daemon's) lets the client go on with one warning line — except
 * under COORD_GUARD=strict, where an edit or commit that could not be checked
 * is refused (SPEC §10: strict refuses what it cannot check, every failure).
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let spoken: Spoken;
  try {
    spoken = await runHook(argv, env);
  } catch (e) {
    spoken = failed(argv, env, (e as Error).message);
  }
  if (spoken.stdout) process.stdout.write(spoken.stdout);
  if (spoken.stderr) process.stderr.write(spoken.stderr);
  process.exitCode = spoken.code;
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
