/** Claude Code (SPEC §10, §17): `~/.claude.json` (or `.mcp.json`), `settings.json` hooks, `CLAUDE.md`. */
import { join } from 'node:path';
import { additionalContext, claudeAnswers } from './answers.js';
import { projectMcpJson } from './mcp-json.js';
import type { ClientEvent, ClientProfile, HeadlessProfile, StreamSignal } from './profile.js';
import { deniedIn, num, parsedLine } from './stream-lines.js';

const EVENTS = {
  'pre-edit': 'PreToolUse',
  'session-start': 'SessionStart',
  stop: 'Stop',
  'pre-shell': 'PreToolUse',
  'post-shell': 'PostToolUse',
  notify: 'Notification',
  resume: 'UserPromptSubmit',
} as const;
/** SPEC §19: the notifications that mean the agent waits for its person (not `auth_success`). */
const WAITING = ['permission_prompt', 'idle_prompt', 'elicitation_dialog'];
const EDIT = ['Edit', 'Write', 'MultiEdit', 'NotebookEdit'];
const SHELL = ['Bash'];
/** The hook timeout setup writes, in seconds (SPEC §10: long enough that a busy daemon is waited for). */
const TIMEOUT_S = 30;

/**
 * SPEC §10 "The client's cheapest hook": Claude Code's pre-edit is an `mcp_tool` hook answered by the
 * session's own `coord mcp` (tool `decide_edit`, which answers in the hook's JSON): no process per edit,
 * and the agent is exactly the MCP session's. `onFailure` stays `continue` (Claude Code's default): a
 * `coord mcp` that is not connected at all lets the edit through, as a command hook does with no daemon.
 * `mark` is the mark coord's earlier command hook had (`hook pre-edit --client claude`): carried in
 * `statusMessage`, it lets setup replace that hook by this one instead of adding a second.
 */
const nativePreEdit = (mark: string) => ({
  type: 'mcp_tool',
  server: 'coord',
  tool: 'decide_edit',
  // Claude Code's own interpolation syntax, not a template string.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code interpolates these
  input: { file_path: '${tool_input.file_path}', notebook_path: '${tool_input.notebook_path}', timeout_s: TIMEOUT_S },
  timeout: TIMEOUT_S,
  statusMessage: `coord: checking locks (${mark})`,
});

/**
 * SPEC §10 shell edits without a process per shell call: Claude Code posts the Bash call's pre and post hook
 * input to the daemon (`type: http`), which takes git's looks itself. The hook key goes in the Authorization
 * header; the agent's name, board and guard mode come from the session's environment through the headers
 * Claude Code interpolates (only variables listed in `allowedEnvVars`; an unset one is sent empty). A refused
 * connection or a timeout is a hook failure, and `onFailure` stays `continue` (the default): with coord down
 * the command runs and is not checked, as with a command hook.
 */
const HTTP_STATUS: Partial<Record<ClientEvent, string>> = {
  'pre-shell': 'noting the work tree',
  'post-shell': 'checking what the command changed',
  stop: 'looking for news before stopping',
};
const httpHook = (site: { url(event: ClientEvent): string; key: string }, event: ClientEvent, mark: string) => ({
  type: 'http',
  url: site.url(event),
  headers: {
    Authorization: `Bearer ${site.key}`,
    'Coord-Agent': '$COORD_AGENT',
    'Coord-Board': '$COORD_BOARD',
    'Coord-Guard': '$COORD_GUARD',
  },
  allowedEnvVars: ['COORD_AGENT', 'COORD_BOARD', 'COORD_GUARD'],
  timeout: TIMEOUT_S,
  statusMessage: `coord: ${HTTP_STATUS[event] ?? 'checking'} (${mark})`,
});

/**
 * SPEC §18: `claude -p` with `--output-format stream-json`. coord's MCP server and hooks reach this one process
 * through `--mcp-config` (with `--strict-mcp-config`: the user's own servers are not started) and `--settings`
 * (added to the user's settings for this run only); no file of the user's is written. The default permission
 * mode accepts edits and allows git and coord's tools, so the agent can edit its work tree, commit and submit
 * without asking; `--permission-mode` passes the user's own choice instead.
 */
const claudeHeadless: HeadlessProfile = {
  bin: 'claude',
  install: 'npm install -g @anthropic-ai/claude-code',
  launch(s) {
    const command = (event: ClientEvent, matcher?: string) => ({
      ...(matcher ? { matcher } : {}),
      hooks: [{ type: 'command', command: s.hook(event), timeout: TIMEOUT_S }],
    });
    // The shell and stop hooks post to the daemon (no process per Bash call or stop) when it is known and the hook
    // key can go in a file of this launch's own (0600, removed after the run): never in the arguments, which any
    // local user reads.
    const site = s.configDir ? s.httpHook : undefined;
    const shell = (event: ClientEvent) =>
      site
        ? { matcher: SHELL.join('|'), hooks: [httpHook(site, event, s.mark(event))] }
        : command(event, SHELL.join('|'));
    const settings = {
      hooks: {
        // No look before a Bash call when the daemon takes them: it looked at the work tree when coord run started
        // this agent and looks after each command (server/shell-check.ts), so a command is compared with the latest.
        PreToolUse: [
          { matcher: EDIT.join('|'), hooks: [nativePreEdit(s.mark('pre-edit'))] },
          ...(site ? [] : [shell('pre-shell')]),
        ],
        PostToolUse: [shell('post-shell')],
        // The first prompt already says what prime would at start-up (the task, its work tree, port and contract;
        // a fresh agent has no mail yet): prime runs when the session resumes (after a pause), clears or compacts.
        SessionStart: [command('session-start', 'resume|clear|compact')],
        // The daemon answers the stop hook itself too (the same rule as the command hook: news holds the stop once).
        Stop: [site ? { hooks: [httpHook(site, 'stop', s.mark('stop'))] } : command('stop')],
      },
    };
    const settingsFile = site && s.configDir ? join(s.configDir, 'settings.json') : undefined;
    // `alwaysLoad`: coord's tools in the first request whole. Claude Code's default tool search would defer them, and
    // the agent would spend a ToolSearch turn before its first coord call (`submit_result`, at the least).
    const mcp = {
      mcpServers: { coord: { type: 'stdio', command: s.mcp.command, args: s.mcp.args, env: {}, alwaysLoad: true } },
    };
    const mode = s.permissionMode ?? 'acceptEdits';
    return {
      args: [
        '-p',
        s.prompt,
        '--output-format',
        'stream-json',
        '--verbose',
        '--mcp-config',
        JSON.stringify(mcp),
        '--strict-mcp-config',
        '--settings',
        settingsFile ?? JSON.stringify(settings),
        '--permission-mode',
        mode,
        ...(s.permissionMode === undefined
          ? ['--allowedTools', 'mcp__coord,Bash(git:*),Read,Edit,Write,Glob,Grep']
          : []),
        ...(s.maxTurns === undefined ? [] : ['--max-turns', String(s.maxTurns)]),
        ...(s.resume === undefined ? [] : ['--resume', s.resume]),
      ],
      // Claude Code keeps a folder per working directory under its temporary folder (/tmp/claude-<uid> by default),
      // never removed: one more for each task's work tree. This launch's own folder goes with the launch.
      env: s.configDir ? { CLAUDE_CODE_TMPDIR: s.configDir } : {},
      files: settingsFile ? [{ path: settingsFile, content: JSON.stringify(settings) }] : [],
    };
  },
  read(line) {
    const e = parsedLine(line.trim());
    if (!e) return [];
    const out: StreamSignal[] = [];
    if (typeof e.session_id === 'string' && e.type === 'system' && e.subtype === 'init')
      out.push({ kind: 'session', id: e.session_id });
    if (e.type === 'assistant') out.push({ kind: 'turn' }, { kind: 'state', state: 'working' });
    if (e.type === 'user') out.push({ kind: 'state', state: 'working' });
    // Claude Code retries a failed model call by itself and says so (a 429 is a usage or rate limit).
    if (e.type === 'system' && e.subtype === 'api_retry')
      out.push({ kind: 'retry', status: num(e.error_status), delayMs: num(e.retry_delay_ms) });
    if (e.type === 'result') {
      const u = (e.usage ?? {}) as Record<string, unknown>;
      const input = [u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens]
        .map(num)
        .reduce<number | null>((a, b) => (b === null ? a : (a ?? 0) + b), null);
      out.push({
        kind: 'result',
        input_tokens: input,
        output_tokens: num(u.output_tokens),
        cost_usd: num(e.total_cost_usd),
        is_error: e.is_error === true,
        text: typeof e.result === 'string' ? e.result : null,
      });
      // Headless, what its permission mode did not allow was refused, not asked: the result lists each.
      out.push(...deniedIn(e));
    }
    return out;
  },
};

export const claude: ClientProfile = {
  kind: 'claude',
  title: 'Claude Code',
  detect: (env) => Boolean(env.CLAUDE_CODE_SESSION_ID || env.CLAUDECODE),
  setup: {
    defaultScope: 'user',
    files(s) {
      const dir = s.env.CLAUDE_CONFIG_DIR || join(s.home, '.claude');
      const user = s.scope === 'user';
      const server = { type: 'stdio', command: s.mcp.command, args: s.mcp.args, env: {} };
      const group = (event: ClientEvent, matcher?: string) => ({
        ...(matcher ? { matcher } : {}),
        hooks: [{ type: 'command', command: s.hook(event), timeout: TIMEOUT_S }],
      });
      // The shell hooks: http where setup may write the hook key (user scope), else command hooks.
      const site = s.httpHook;
      const shell = (event: ClientEvent) =>
        site
          ? { matcher: SHELL.join('|'), hooks: [httpHook(site, event, s.mark(event))] }
          : group(event, SHELL.join('|'));
      return [
        user
          ? {
              format: 'json',
              path: join(s.env.CLAUDE_CONFIG_DIR || s.home, '.claude.json'),
              what: 'mcpServers.coord',
              edits: [{ op: 'set', path: ['mcpServers', 'coord'], value: server }],
            }
          : projectMcpJson(s),
        {
          format: 'json',
          path: user ? join(dir, 'settings.json') : join(s.root, '.claude', 'settings.json'),
          what: `hooks PreToolUse (${EDIT.join('|')}: mcp_tool; ${SHELL.join('|')}${site ? ': http' : ''}), PostToolUse (${SHELL.join('|')}${site ? ': http' : ''}), SessionStart, Stop, Notification, UserPromptSubmit; permissions.allow mcp__coord`,
          edits: [
            {
              op: 'group',
              path: ['hooks', EVENTS['pre-edit']],
              group: { matcher: EDIT.join('|'), hooks: [nativePreEdit(s.mark('pre-edit'))] },
              mark: s.mark('pre-edit'),
            },
            // SPEC §10 shell edits: git's view of the work tree before and after each Bash call.
            {
              op: 'group',
              path: ['hooks', EVENTS['pre-shell']],
              group: shell('pre-shell'),
              mark: s.mark('pre-shell'),
            },
            {
              op: 'group',
              path: ['hooks', EVENTS['post-shell']],
              group: shell('post-shell'),
              mark: s.mark('post-shell'),
            },
            {
              op: 'group',
              path: ['hooks', EVENTS['session-start']],
              group: group('session-start'),
              mark: s.mark('session-start'),
            },
            { op: 'group', path: ['hooks', EVENTS.stop], group: group('stop'), mark: s.mark('stop') },
            // SPEC §19: the agent waits for its person (coord attention), and goes on.
            {
              op: 'group',
              path: ['hooks', EVENTS.notify],
              group: group('notify', WAITING.join('|')),
              mark: s.mark('notify'),
            },
            { op: 'group', path: ['hooks', EVENTS.resume], group: group('resume'), mark: s.mark('resume') },
            // coord's tools run without a permission prompt (headless `claude -p` would refuse them).
            { op: 'union', path: ['permissions', 'allow'], item: 'mcp__coord' },
            ...(user ? [] : [{ op: 'union' as const, path: ['enabledMcpjsonServers'], item: 'coord' }]),
          ],
        },
        {
          format: 'section',
          path: user ? join(dir, 'CLAUDE.md') : join(s.root, 'CLAUDE.md'),
          what: 'the coord instructions section',
        },
      ];
    },
  },
  hooks: {
    events: EVENTS,
    input: { toolName: ['tool_name'], toolInput: ['tool_input'] },
    ...claudeAnswers(EVENTS),
    // PreToolUse's `additionalContext` reaches the model; the edit goes ahead as the user's settings allow.
    allowNoting: additionalContext(EVENTS),
  },
  identity: { mcpEnv: ['CLAUDE_CODE_SESSION_ID'], hookEnv: ['CLAUDE_CODE_SESSION_ID'] },
  tools: { edit: EDIT, readOnly: [], shell: SHELL, hookSeesEveryTool: false },
  // Claude Code defers MCP tools behind its tool search: all of them cost nothing until used.
  toolSurface: 'all',
  mcpClientNames: ['claude-code'],
  mcpToolName: (t) => `mcp__coord__${t}`,
  result: 'structured',
  headless: claudeHeadless,
};
