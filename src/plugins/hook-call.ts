/**
 * What coord's plugins and extensions share (SPEC §17): the clients that block an edit only from code
 * running inside them (OpenCode and Kilo plugins, a Cline plugin, a Pi extension) ask coord's own
 * pre-edit hook — `coord hook pre-edit --client <kind>` — with the tool call in Claude Code's shape on
 * stdin, and block the call when it answers exit 2 (the reason on stderr, which the model then reads).
 * Nothing else of coord is loaded into the client: these files import Node built-ins only, because
 * each client loads them in its own runtime (Bun, a plugin sandbox, jiti).
 */
import { spawn } from 'node:child_process';

/** What `coord setup` writes into the small file that loads a plugin: how to run coord's hook. */
export interface HookCommand {
  /** Absolute node, then bin/coord.js and its arguments (`hook pre-edit --client … [--state …]`). */
  argv: string[];
  /**
   * The plugin runs in a child of the client process (Cline's plugin sandbox): the hook is told to
   * name the client from this process's parent (COORD_HOOK_FROM_PID), as the client's MCP server does.
   */
  fromParentOfPlugin?: boolean;
}

export interface ToolCall {
  tool_name: string;
  tool_input: unknown;
  cwd: string;
}

/** A deadline for one hook run; coord's hook answers well within it, or says coord_busy itself. */
const HOOK_TIMEOUT_MS = 30_000;

/** The reason to block this tool call, or null to let it run (coord down, coord allows it, anything odd). */
export function preEditReason(hook: HookCommand, call: ToolCall): Promise<string | null> {
  const [cmd, ...args] = hook.argv;
  if (!cmd) return Promise.resolve(null);
  return new Promise((resolve) => {
    const env = { ...process.env, ...(hook.fromParentOfPlugin ? { COORD_HOOK_FROM_PID: String(process.pid) } : {}) };
    const child = spawn(cmd, args, { cwd: call.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
    });
    child.stdout.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), HOOK_TIMEOUT_MS);
    child.on('error', () => {
      clearTimeout(timer);
      resolve(null);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code === 2 && stderr.trim() !== '' ? stderr.trim() : null);
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(call));
  });
}

/** What a coord command prints (coord prime's context), or '' when it fails or is not there. */
export function commandText(argv: string[], cwd: string, fromParentOfPlugin = false): Promise<string> {
  const [cmd, ...args] = argv;
  if (!cmd) return Promise.resolve('');
  return new Promise((resolve) => {
    const env = { ...process.env, ...(fromParentOfPlugin ? { COORD_HOOK_FROM_PID: String(process.pid) } : {}) };
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), HOOK_TIMEOUT_MS);
    child.on('error', () => {
      clearTimeout(timer);
      resolve('');
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? stdout.trim() : '');
    });
  });
}
