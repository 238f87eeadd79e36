/**
 * What coord's plugins and extensions share (SPEC §17): the clients that block an edit only from code
 * running inside them (OpenCode and Kilo plugins, a Cline plugin, a Pi extension) ask coord's own hooks —
 * `coord hook pre-edit|pre-shell|post-shell|stop --client <kind>`, `coord prime` — with the tool call in
 * Claude Code's shape as input, and read the answer as the plugin clients' hook contract says
 * (clients/answers.ts `pluginHooks`): exit 2 with the reason on stderr blocks (pre-edit) or is what the
 * model must be told (post-shell); stop's `{"decision":"block","reason"}` keeps the agent going.
 *
 * The hooks run inside the client: coord's hook entry (hooks/main.ts `hookAnswer`) is imported once,
 * so an edit costs one local HTTP round trip to the daemon instead of a Node process — the same code,
 * the same rules (daemon.json and the token only for a daemon holding the state directory's lock;
 * allowed only when no daemon runs; a busy one waited for). Where the client's runtime cannot load it,
 * each call starts `coord hook …` as before. This file imports Node built-ins only.
 */
import { spawn } from 'node:child_process';

/** What `coord setup` writes into the small file that loads a plugin: how to run coord's hook. */
export interface HookCommand {
  /** Absolute node, then bin/coord.js and its arguments (`hook pre-edit --client … [--state …]`). */
  argv: string[];
  /**
   * The plugin runs in a child of the client process (Cline's plugin sandbox): the hook is told to
   * name the client from this process's parent (COORD_HOOK_FROM_PID), as the client's MCP server does.
   * Otherwise the plugin runs inside the client process itself (OpenCode, Kilo, Pi).
   */
  fromParentOfPlugin?: boolean;
}

export interface ToolCall {
  tool_name: string;
  tool_input: unknown;
  cwd: string;
  /** Pairs a shell call's pre-shell with its post-shell. */
  tool_use_id?: string;
}

interface Spoken {
  code: number;
  stdout: string;
  stderr: string;
}
type HookAnswer = (argv: string[], env: NodeJS.ProcessEnv, given?: Record<string, unknown>) => Promise<Spoken>;

/** A deadline for one hook run; coord's hook answers well within it, or says coord_busy itself. */
const HOOK_TIMEOUT_MS = 30_000;

let loaded: Promise<HookAnswer | null> | undefined;
/** The hook entry once loaded. */
let ready: HookAnswer | null = null;

/** coord's hook entry, loaded into this process once (a plugin starts loading it when it is created); null where this runtime cannot load it. */
export function inProcessHooks(): Promise<HookAnswer | null> {
  if (process.env.COORD_PLUGIN_SPAWN === '1') return Promise.resolve(null);
  loaded ??= import('../hooks/main.js').then(
    (m: { hookAnswer?: HookAnswer }) => {
      ready = m.hookAnswer ?? null;
      return ready;
    },
    () => null,
  );
  return loaded;
}

/** The same hook for another event: `… hook pre-edit …` → `… hook post-shell …`. */
export function eventArgv(
  argv: string[],
  event: 'pre-edit' | 'pre-shell' | 'post-shell' | 'stop' | 'notify' | 'resume',
): string[] {
  const at = argv.indexOf('hook');
  return at < 0 ? argv : [...argv.slice(0, at + 1), event, ...argv.slice(at + 2)];
}

/** Run one coord hook (argv as setup wrote it: node, coord.js, then the hook's own arguments). */
export async function runHook(
  argv: string[],
  input: Record<string, unknown> | undefined,
  cwd: string,
  fromParentOfPlugin = false,
): Promise<Spoken> {
  // Cline gives a plugin's hook 3 s: a call there never waits for the first load (seconds on a busy
  // machine), it starts `coord hook` until the hooks are loaded.
  const answer = fromParentOfPlugin ? ready : await inProcessHooks();
  if (answer) {
    const env = {
      ...process.env,
      ...(fromParentOfPlugin
        ? { COORD_HOOK_FROM_PID: String(process.pid) }
        : { COORD_HOOK_CLIENT_PID: String(process.pid) }),
    };
    return answer(argv.slice(2), env, { cwd, ...input });
  }
  return spawned(argv, input, cwd, fromParentOfPlugin);
}

/** The reason to block this tool call, or null to let it run (coord down, coord allows it, anything odd). */
export async function preEditReason(hook: HookCommand, call: ToolCall): Promise<string | null> {
  const r = await runHook(eventArgv(hook.argv, 'pre-edit'), { ...call }, call.cwd, hook.fromParentOfPlugin);
  return r.code === 2 && r.stderr.trim() !== '' ? r.stderr.trim() : null;
}

/** Before a shell tool runs: coord notes git's view of the work tree (SPEC §10 shell edits). */
export async function beforeShell(hook: HookCommand, call: ToolCall): Promise<void> {
  await runHook(eventArgv(hook.argv, 'pre-shell'), { ...call }, call.cwd, hook.fromParentOfPlugin);
}

/**
 * After a shell tool ran: what it changed that another agent holds, for the model (free paths it
 * changed are now auto-locked), or null.
 */
export async function afterShell(hook: HookCommand, call: ToolCall): Promise<string | null> {
  const r = await runHook(eventArgv(hook.argv, 'post-shell'), { ...call }, call.cwd, hook.fromParentOfPlugin);
  return r.code === 2 && r.stderr.trim() !== '' ? r.stderr.trim() : null;
}

/**
 * The agent would stop: what arrived for it since it last looked (a message, a handoff, a task for it
 * alone), to keep it going once, or null. `again`: it is already going on because of this check.
 */
export async function stopReason(hook: HookCommand, cwd: string, again: boolean): Promise<string | null> {
  const r = await runHook(eventArgv(hook.argv, 'stop'), { stop_hook_active: again, cwd }, cwd, hook.fromParentOfPlugin);
  if (r.code !== 0 || !r.stdout.trim()) return null;
  try {
    const said = JSON.parse(r.stdout) as { decision?: string; reason?: string };
    return said.decision === 'block' && typeof said.reason === 'string' ? said.reason : null;
  } catch {
    return null;
  }
}

/**
 * SPEC §19: the agent waits for its person (`message`: what for — a permission, a question), or (null) goes on:
 * coord's notify/resume hook tells the daemon, for `coord attention`. Never fails the client.
 */
export async function tellWaiting(hook: HookCommand, cwd: string, message: string | null): Promise<void> {
  const event = message === null ? 'resume' : 'notify';
  await runHook(eventArgv(hook.argv, event), message === null ? {} : { message }, cwd, hook.fromParentOfPlugin);
}

/** What a coord command prints (coord prime's context), or '' when it fails or is not there. */
export async function commandText(argv: string[], cwd: string, fromParentOfPlugin = false): Promise<string> {
  const r = await runHook(argv, undefined, cwd, fromParentOfPlugin);
  return r.code === 0 ? r.stdout.trim() : '';
}

/** The hook as its own process (a runtime that cannot load coord's hooks): input on stdin. */
function spawned(
  argv: string[],
  input: Record<string, unknown> | undefined,
  cwd: string,
  fromParentOfPlugin: boolean,
): Promise<Spoken> {
  const [cmd, ...args] = argv;
  if (!cmd) return Promise.resolve({ code: 0, stdout: '', stderr: '' });
  return new Promise((resolve) => {
    const env = { ...process.env, ...(fromParentOfPlugin ? { COORD_HOOK_FROM_PID: String(process.pid) } : {}) };
    const child = spawn(cmd, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), HOOK_TIMEOUT_MS);
    child.on('error', () => {
      clearTimeout(timer);
      resolve({ code: 0, stdout: '', stderr: '' });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(input === undefined ? '' : JSON.stringify({ cwd, ...input }));
  });
}

/**
 * A plugin's hook calls, bound to the command `coord setup` gave it; making them starts loading the hooks into
 * this process, so the first edit does not wait for it.
 */
export function pluginHooks(hook: HookCommand) {
  void inProcessHooks();
  return {
    preEdit: (call: ToolCall) => preEditReason(hook, call),
    beforeShell: (call: ToolCall) => beforeShell(hook, call),
    afterShell: (call: ToolCall) => afterShell(hook, call),
    stop: (cwd: string, again: boolean) => stopReason(hook, cwd, again),
    tellWaiting: (cwd: string, message: string | null) => tellWaiting(hook, cwd, message),
    /** `coord prime`'s context (`argv` as setup wrote it). */
    prime: (argv: string[], cwd: string) => commandText(argv, cwd, hook.fromParentOfPlugin),
  };
}
