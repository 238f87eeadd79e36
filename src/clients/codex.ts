/** Codex CLI (SPEC §10, §17): `config.toml` (MCP server, hooks and their trust), `AGENTS.md`. */
import { join } from 'node:path';
import { claudeAnswers } from './answers.js';
import type { ClientEvent, ClientProfile, HeadlessProfile, StreamSignal } from './profile.js';

/** A TOML basic string (JSON's string syntax is TOML's for what coord writes). */
const tomlString = (v: string) => JSON.stringify(v);
const tomlTable = (o: Record<string, string>) =>
  `{${Object.entries(o)
    .map(([k, v]) => `${k}=${tomlString(v)}`)
    .join(', ')}}`;
const hookGroup = (matcher: string | null, command: string) =>
  `[{${matcher ? `matcher=${tomlString(matcher)}, ` : ''}hooks=[{type="command", command=${tomlString(command)}, timeout=30}]}]`;
const parsedLine = (line: string): Record<string, unknown> | null => {
  try {
    const v: unknown = JSON.parse(line);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};
const n = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * SPEC §18: `codex exec --json`, with coord's MCP server and hooks given as `-c` overrides for this process
 * (the user's config.toml is read as always, never written). Codex starts MCP servers with a cleaned
 * environment, so coord's variables travel in `mcp_servers.coord.env`. Its `workspace-write` sandbox cannot
 * commit in a linked work tree (git's index lock lives in the main repository's `.git/worktrees/<id>/`, which
 * Codex keeps read-only even as a writable root): docs/run.md says so, and `--permission-mode
 * danger-full-access` is the user's choice that lets it commit. Hooks given by `-c` run only once trusted
 * (`coord setup codex` records their trust).
 */
const codexHeadless: HeadlessProfile = {
  bin: 'codex',
  install: 'npm install -g @openai/codex',
  launch(s) {
    const c = (kv: string) => ['-c', kv];
    const hook = (event: ClientEvent) => s.hook(event);
    const sandbox = s.permissionMode ?? 'workspace-write';
    const opts = [
      '--json',
      ...c(`mcp_servers.coord.command=${tomlString(s.mcp.command)}`),
      ...c(`mcp_servers.coord.args=${JSON.stringify(s.mcp.args)}`),
      ...c(`mcp_servers.coord.env=${tomlTable(s.coordEnv)}`),
      // codex exec drops an MCP server slow to start (coord mcp on a busy machine).
      ...c('mcp_optional_startup_grace_ms=60000'),
      ...c(
        `hooks.PreToolUse=${hookGroup('apply_patch', hook('pre-edit')).slice(0, -1)}, ${hookGroup('Bash', hook('pre-shell')).slice(1)}`,
      ),
      ...c(`hooks.PostToolUse=${hookGroup('Bash', hook('post-shell'))}`),
      ...c(`hooks.SessionStart=${hookGroup(null, hook('session-start'))}`),
      ...c('approval_policy="never"'),
      '-s',
      sandbox,
      ...(sandbox === 'workspace-write'
        ? c(`sandbox_workspace_write.writable_roots=${JSON.stringify([s.gitCommonDir])}`)
        : []),
    ];
    return {
      args: s.resume ? ['exec', ...opts, 'resume', s.resume, s.prompt] : ['exec', ...opts, s.prompt],
      env: {},
    };
  },
  read(line) {
    const e = parsedLine(line);
    if (!e) return [];
    const out: StreamSignal[] = [];
    if (e.type === 'thread.started' && typeof e.thread_id === 'string') out.push({ kind: 'session', id: e.thread_id });
    if (e.type === 'turn.started') out.push({ kind: 'turn' }, { kind: 'state', state: 'working' });
    if (e.type === 'item.started' || e.type === 'item.completed') out.push({ kind: 'state', state: 'working' });
    if (e.type === 'turn.completed') {
      const u = (e.usage ?? {}) as Record<string, unknown>;
      out.push({
        kind: 'result',
        input_tokens: n(u.input_tokens),
        output_tokens: n(u.output_tokens),
        cost_usd: null,
        is_error: false,
        text: null,
      });
    }
    if (e.type === 'turn.failed' || e.type === 'error') {
      const message = String((e.error as { message?: unknown } | undefined)?.message ?? e.message ?? '');
      // Codex retries a 429 itself; what it says of it names the status.
      if (/429|rate limit|usage limit/i.test(message))
        out.push({ kind: 'retry', status: 429, delayMs: retryIn(message) });
    }
    return out;
  },
};

/** "try again in 1m30s" / "in 20 seconds" → ms, or null. */
function retryIn(message: string): number | null {
  const m = /try again in\s+(?:(\d+)h)?\s*(?:(\d+)m(?!s))?\s*(?:(\d+(?:\.\d+)?)\s*s)?/i.exec(message);
  if (!m || (!m[1] && !m[2] && !m[3])) return null;
  return ((Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 1000;
}

const EVENTS = {
  'pre-edit': 'PreToolUse',
  'session-start': 'SessionStart',
  stop: 'Stop',
  'pre-shell': 'PreToolUse',
  'post-shell': 'PostToolUse',
  // SPEC §19: PermissionRequest runs before Codex asks its user to approve a command or a network access
  // (a hook that says nothing leaves the question to the user); UserPromptSubmit, when the user answers.
  notify: 'PermissionRequest',
  resume: 'UserPromptSubmit',
} as const;

export const codex: ClientProfile = {
  kind: 'codex',
  title: 'Codex CLI',
  detect: (env) => Boolean(env.CODEX_SANDBOX || env.CODEX_HOME || env.CODEX_THREAD_ID),
  setup: {
    defaultScope: 'user',
    files(s) {
      const dir = s.scope === 'user' ? s.env.CODEX_HOME || join(s.home, '.codex') : join(s.root, '.codex');
      return [
        {
          format: 'codex-toml',
          path: join(dir, 'config.toml'),
          what: '[mcp_servers.coord], [[hooks.PreToolUse]] apply_patch and Bash, [[hooks.PostToolUse]] Bash, [[hooks.SessionStart]], [[hooks.Stop]], [[hooks.PermissionRequest]], [[hooks.UserPromptSubmit]], their [hooks.state] trust, mcp_optional_startup_grace_ms',
          block: {
            mcpCommand: s.mcp.command,
            mcpArgs: s.mcp.args,
            preEdit: s.hook('pre-edit'),
            preShell: s.hook('pre-shell'),
            postShell: s.hook('post-shell'),
            prime: s.hook('session-start'),
            stop: s.hook('stop'),
            notify: s.hook('notify'),
            resume: s.hook('resume'),
          },
        },
        {
          format: 'section',
          path: s.scope === 'user' ? join(dir, 'AGENTS.md') : join(s.root, 'AGENTS.md'),
          what: 'the coord instructions section',
        },
      ];
    },
    after: 'codex-trust',
  },
  hooks: {
    events: EVENTS,
    input: { toolName: ['tool_name'], toolInput: ['tool_input'] },
    ...claudeAnswers(EVENTS),
  },
  // Codex gives hooks `session_id`, but its MCP server sees it only inside calls: the process is what both share.
  identity: { mcpEnv: [], hookEnv: [] },
  tools: {
    edit: ['apply_patch'],
    readOnly: [],
    // Its shell tool is exec_command (also shell, local_shell); its hooks name it `Bash`.
    shell: ['Bash', 'shell', 'exec_command', 'local_shell'],
    hookSeesEveryTool: false,
  },
  toolSurface: 'core',
  mcpClientNames: ['codex-mcp-client'],
  mcpToolName: (t) => `mcp__coord__${t}`,
  result: 'structured',
  headless: codexHeadless,
};
