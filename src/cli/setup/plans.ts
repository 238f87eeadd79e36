/**
 * What `coord setup <client>` writes, per client and scope (SPEC §5, §10):
 * the MCP server, the hooks, and the marked instructions section — all that
 * a client needs to claim, be blocked and be primed, with no hand edits.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ClientKind } from '../../client/agent-identity.js';
import { codexBlock, removeCodexToml, upsertCodexToml } from './codex-toml.js';
import { removeSection, sectionBlock, upsertSection } from './instructions.js';
import { applyJson, type JsonEdit, undoJson } from './json-file.js';

export type Scope = 'user' | 'project';

/** How to run this coord: absolute node and bin/coord.js, because GUI-launched clients do not see the shell's PATH. */
export interface Launch {
  node: string;
  bin: string;
  /** `--state DIR` when a state directory is pinned. */
  stateArgs: string[];
}

export interface SetupContext {
  client: ClientKind;
  scope: Scope;
  /** The work tree setup runs in (project scope writes there). */
  root: string;
  env: NodeJS.ProcessEnv;
  launch: Launch;
}

export interface FilePlan {
  path: string;
  /** What coord keeps in it, for the report. */
  what: string;
  apply(before: string | null): string;
  /** Take coord's part out of `current` (used when the file changed since setup wrote it). */
  undo(current: string | null, before: string | null, trusted: string[]): string | null;
}

/** POSIX shell quoting, only where needed. */
export const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

export const mcpArgs = (c: SetupContext): string[] => [
  c.launch.bin,
  'mcp',
  '--client',
  c.client,
  ...c.launch.stateArgs,
];

/** The mark that finds coord's hook in a client's list: unique per event and client. */
export const hookMark = (event: string, client: ClientKind) =>
  event === 'session-start' ? `prime --client ${client}` : `hook ${event} --client ${client}`;

export type SetupHook = 'pre-edit' | 'session-start' | 'stop' | 'pre-shell' | 'post-shell';

export function hookCommand(c: SetupContext, event: SetupHook): string {
  const words = [c.launch.node, c.launch.bin, ...hookMark(event, c.client).split(' '), ...c.launch.stateArgs];
  return words.map(shellQuote).join(' ');
}

const home = (env: NodeJS.ProcessEnv) => env.HOME || homedir();

function jsonPlan(path: string, what: string, edits: JsonEdit[]): FilePlan {
  return {
    path,
    what,
    apply: (before) => applyJson(before, edits, path),
    undo: (current, before) => undoJson(current, edits, before, path),
  };
}

function sectionPlan(path: string, prefix = ''): FilePlan {
  return {
    path,
    what: 'the coord instructions section',
    apply: (before) => upsertSection(before, sectionBlock(), prefix),
    undo: (current) => removeSection(current, prefix),
  };
}

const commandHook = (command: string, extra: Record<string, unknown> = {}) => ({ type: 'command', command, ...extra });

export function planFor(c: SetupContext): FilePlan[] {
  switch (c.client) {
    case 'claude':
      return claude(c);
    case 'codex':
      return codex(c);
    case 'gemini':
      return gemini(c);
    case 'cursor':
      return cursor(c);
  }
}

/**
 * SPEC §10 "The client's cheapest hook": Claude Code's pre-edit is an `mcp_tool` hook answered by the
 * session's own `coord mcp` (tool `decide_edit`, which answers in the hook's JSON): no process per edit,
 * and the agent is exactly the MCP session's. `onFailure` stays `continue` (Claude Code's default): a
 * `coord mcp` that is not connected at all lets the edit through, as a command hook does with no daemon.
 */
const CLAUDE_PRE_EDIT = {
  type: 'mcp_tool',
  server: 'coord',
  tool: 'decide_edit',
  // Claude Code's own interpolation syntax, not a template string.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code interpolates these
  input: { file_path: '${tool_input.file_path}', notebook_path: '${tool_input.notebook_path}', timeout_s: 30 },
  timeout: 30,
  // Carries the mark coord's earlier command hook had (`hook pre-edit --client claude`), so setup replaces
  // that hook by this one instead of adding a second.
  statusMessage: `coord: checking locks (${hookMark('pre-edit', 'claude')})`,
};

function claude(c: SetupContext): FilePlan[] {
  const dir = c.env.CLAUDE_CONFIG_DIR || join(home(c.env), '.claude');
  const user = c.scope === 'user';
  const server = { type: 'stdio', command: c.launch.node, args: mcpArgs(c), env: {} };
  const group = (event: SetupHook, matcher?: string) => ({
    ...(matcher ? { matcher } : {}),
    hooks: [commandHook(hookCommand(c, event), { timeout: 30 })],
  });
  const settings: JsonEdit[] = [
    {
      op: 'group',
      path: ['hooks', 'PreToolUse'],
      group: { matcher: 'Edit|Write|MultiEdit|NotebookEdit', hooks: [CLAUDE_PRE_EDIT] },
      mark: hookMark('pre-edit', 'claude'),
    },
    // SPEC §10 shell edits: git's view of the work tree before and after each Bash call.
    {
      op: 'group',
      path: ['hooks', 'PreToolUse'],
      group: group('pre-shell', 'Bash'),
      mark: hookMark('pre-shell', 'claude'),
    },
    {
      op: 'group',
      path: ['hooks', 'PostToolUse'],
      group: group('post-shell', 'Bash'),
      mark: hookMark('post-shell', 'claude'),
    },
    {
      op: 'group',
      path: ['hooks', 'SessionStart'],
      group: group('session-start'),
      mark: hookMark('session-start', 'claude'),
    },
    { op: 'group', path: ['hooks', 'Stop'], group: group('stop'), mark: hookMark('stop', 'claude') },
    // coord's tools run without a permission prompt (headless `claude -p` would refuse them).
    { op: 'union', path: ['permissions', 'allow'], item: 'mcp__coord' },
    ...(user ? [] : [{ op: 'union' as const, path: ['enabledMcpjsonServers'], item: 'coord' }]),
  ];
  return [
    user
      ? jsonPlan(join(c.env.CLAUDE_CONFIG_DIR || home(c.env), '.claude.json'), 'mcpServers.coord', [
          { op: 'set', path: ['mcpServers', 'coord'], value: server },
        ])
      : jsonPlan(join(c.root, '.mcp.json'), 'mcpServers.coord', [
          { op: 'set', path: ['mcpServers', 'coord'], value: server },
        ]),
    jsonPlan(
      user ? join(dir, 'settings.json') : join(c.root, '.claude', 'settings.json'),
      'hooks PreToolUse (Edit|Write|MultiEdit|NotebookEdit: mcp_tool; Bash), PostToolUse (Bash), SessionStart, Stop; permissions.allow mcp__coord',
      settings,
    ),
    sectionPlan(user ? join(dir, 'CLAUDE.md') : join(c.root, 'CLAUDE.md')),
  ];
}

function codex(c: SetupContext): FilePlan[] {
  const dir = c.scope === 'user' ? c.env.CODEX_HOME || join(home(c.env), '.codex') : join(c.root, '.codex');
  const block = codexBlock({
    mcpCommand: c.launch.node,
    mcpArgs: mcpArgs(c),
    preEdit: hookCommand(c, 'pre-edit'),
    prime: hookCommand(c, 'session-start'),
    stop: hookCommand(c, 'stop'),
  });
  return [
    {
      path: join(dir, 'config.toml'),
      what: '[mcp_servers.coord], [[hooks.PreToolUse]] apply_patch, [[hooks.SessionStart]], [[hooks.Stop]], their [hooks.state] trust, mcp_optional_startup_grace_ms',
      apply: (before) => upsertCodexToml(before, block),
      undo: (current, _before, trusted) => removeCodexToml(current, trusted),
    },
    sectionPlan(c.scope === 'user' ? join(dir, 'AGENTS.md') : join(c.root, 'AGENTS.md')),
  ];
}

function gemini(c: SetupContext): FilePlan[] {
  const dir = c.scope === 'user' ? join(home(c.env), '.gemini') : join(c.root, '.gemini');
  const group = (event: SetupHook, name: string, matcher?: string) => ({
    ...(matcher ? { matcher } : {}),
    hooks: [commandHook(hookCommand(c, event), { name, timeout: 30_000 })],
  });
  return [
    jsonPlan(
      join(dir, 'settings.json'),
      'mcpServers.coord (trust: true); hooks BeforeTool (write_file|replace, run_shell_command), AfterTool (run_shell_command), SessionStart, AfterAgent',
      [
        // trust: true — Gemini CLI offers an untrusted server's tools only after a confirmation, which headless mode cannot give.
        { op: 'set', path: ['mcpServers', 'coord'], value: { command: c.launch.node, args: mcpArgs(c), trust: true } },
        {
          op: 'group',
          path: ['hooks', 'BeforeTool'],
          group: group('pre-edit', 'coord-pre-edit', 'write_file|replace'),
          mark: hookMark('pre-edit', 'gemini'),
        },
        {
          op: 'group',
          path: ['hooks', 'BeforeTool'],
          group: group('pre-shell', 'coord-pre-shell', 'run_shell_command'),
          mark: hookMark('pre-shell', 'gemini'),
        },
        {
          op: 'group',
          path: ['hooks', 'AfterTool'],
          group: group('post-shell', 'coord-post-shell', 'run_shell_command'),
          mark: hookMark('post-shell', 'gemini'),
        },
        {
          op: 'group',
          path: ['hooks', 'SessionStart'],
          group: group('session-start', 'coord-prime'),
          mark: hookMark('session-start', 'gemini'),
        },
        {
          op: 'group',
          path: ['hooks', 'AfterAgent'],
          group: group('stop', 'coord-stop'),
          mark: hookMark('stop', 'gemini'),
        },
      ],
    ),
    sectionPlan(c.scope === 'user' ? join(dir, 'GEMINI.md') : join(c.root, 'GEMINI.md')),
  ];
}

const MDC_PREFIX = `---
description: coord — the task board and file locks shared by the agents in this repository
alwaysApply: true
---

`;

function cursor(c: SetupContext): FilePlan[] {
  const dir = c.scope === 'user' ? join(home(c.env), '.cursor') : join(c.root, '.cursor');
  const hook = (event: 'pre-edit' | 'session-start' | 'stop') => ({ command: hookCommand(c, event) });
  return [
    jsonPlan(join(dir, 'mcp.json'), 'mcpServers.coord', [
      { op: 'set', path: ['mcpServers', 'coord'], value: { command: c.launch.node, args: mcpArgs(c) } },
    ]),
    jsonPlan(join(dir, 'hooks.json'), 'hooks preToolUse, sessionStart, stop', [
      { op: 'set', path: ['version'], value: 1 },
      { op: 'group', path: ['hooks', 'preToolUse'], group: hook('pre-edit'), mark: hookMark('pre-edit', 'cursor') },
      {
        op: 'group',
        path: ['hooks', 'sessionStart'],
        group: hook('session-start'),
        mark: hookMark('session-start', 'cursor'),
      },
      { op: 'group', path: ['hooks', 'stop'], group: hook('stop'), mark: hookMark('stop', 'cursor') },
    ]),
    ...(c.scope === 'project' ? [sectionPlan(join(dir, 'rules', 'coord.mdc'), MDC_PREFIX)] : []),
  ];
}
