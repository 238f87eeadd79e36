/**
 * Qwen Code (SPEC §17), a Gemini CLI fork with Claude Code's hook format: `~/.qwen/settings.json`
 * (the MCP server trusted; `PreToolUse`, `SessionStart`, `Stop`), `QWEN.md`. Its MCP server and its
 * hooks both see `QWEN_CODE_SESSION_ID`. It defers MCP tools behind `tool_search`.
 */
import { join } from 'node:path';
import { additionalContext, claudeAnswers } from './answers.js';
import type { ClientEvent, ClientProfile } from './profile.js';
import { qwenHeadless } from './qwen-headless.js';

const EVENTS = {
  'pre-edit': 'PreToolUse',
  'session-start': 'SessionStart',
  stop: 'Stop',
  'pre-shell': 'PreToolUse',
  'post-shell': 'PostToolUse',
  // SPEC §19: as Claude Code's — Notification (`permission_prompt`, `idle_prompt`), UserPromptSubmit.
  notify: 'Notification',
  resume: 'UserPromptSubmit',
} as const;
/** SPEC §19: the notifications that mean the agent waits for its person (not `auth_success`). */
const WAITING = ['permission_prompt', 'idle_prompt', 'elicitation_dialog'];
const EDIT = ['edit', 'write_file'];
const SHELL = ['run_shell_command'];

/**
 * SPEC §10 shell edits with no process per shell call: Qwen Code's `http` hooks post the shell call's hook
 * input to the daemon (loopback is allowed by its SSRF filter), which takes git's looks itself. Its header
 * interpolation is `${VAR}`, for variables listed in `allowedEnvVars`. A failed request is a non-blocking
 * hook failure: with coord down the command runs unchecked.
 */
const httpShellHook = (site: { url(event: ClientEvent): string; key: string }, event: ClientEvent, mark: string) => ({
  type: 'http',
  url: site.url(event),
  headers: {
    Authorization: `Bearer ${site.key}`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Qwen Code interpolates these
    'Coord-Agent': '${COORD_AGENT}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Qwen Code interpolates these
    'Coord-Board': '${COORD_BOARD}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Qwen Code interpolates these
    'Coord-Guard': '${COORD_GUARD}',
  },
  allowedEnvVars: ['COORD_AGENT', 'COORD_BOARD', 'COORD_GUARD'],
  timeout: 30,
  name: `coord-${event}`,
  statusMessage: `coord: ${event === 'pre-shell' ? 'noting the work tree' : event === 'resume' ? 'the agent goes on' : 'checking what the command changed'} (${mark})`,
});

export const qwen: ClientProfile = {
  kind: 'qwen',
  title: 'Qwen Code',
  detect: (env) => Boolean(env.QWEN_CODE_SESSION_ID || env.QWEN_CODE_CLI),
  setup: {
    defaultScope: 'user',
    files(s) {
      const dir = s.scope === 'user' ? join(s.home, '.qwen') : join(s.root, '.qwen');
      const group = (event: ClientEvent, matcher?: string) => ({
        ...(matcher ? { matcher } : {}),
        hooks: [{ type: 'command', command: s.hook(event), timeout: 30_000 }],
      });
      const site = s.httpHook;
      const shell = (event: ClientEvent) =>
        site
          ? { matcher: SHELL.join('|'), hooks: [httpShellHook(site, event, s.mark(event))] }
          : group(event, SHELL.join('|'));
      return [
        {
          format: 'json',
          path: join(dir, 'settings.json'),
          what: `mcpServers.coord (trust: true); hooks PreToolUse (${EDIT.join('|')}; ${SHELL.join('|')}${site ? ': http' : ''}), PostToolUse (${SHELL.join('|')}${site ? ': http' : ''}), SessionStart, Stop, Notification, UserPromptSubmit${site ? ' (http)' : ''}`,
          edits: [
            {
              op: 'set',
              path: ['mcpServers', 'coord'],
              value: { command: s.mcp.command, args: s.mcp.args, trust: true },
            },
            {
              op: 'group',
              path: ['hooks', EVENTS['pre-edit']],
              group: group('pre-edit', EDIT.join('|')),
              mark: s.mark('pre-edit'),
            },
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
            // Qwen Code runs UserPromptSubmit before every model call that sends a prompt or tool results: an
            // http hook where setup may write the key (no process per call), else a command hook.
            {
              op: 'group',
              path: ['hooks', EVENTS.resume],
              group: site ? { hooks: [httpShellHook(site, 'resume', s.mark('resume'))] } : group('resume'),
              mark: s.mark('resume'),
            },
          ],
        },
        {
          format: 'section',
          path: s.scope === 'user' ? join(dir, 'QWEN.md') : join(s.root, 'QWEN.md'),
          what: 'the coord instructions section',
        },
      ];
    },
  },
  hooks: {
    events: EVENTS,
    input: { toolName: ['tool_name'], toolInput: ['tool_input'] },
    ...claudeAnswers(EVENTS),
    context: additionalContext(EVENTS),
    // After a shell command its PostToolUse reads `hookSpecificOutput.additionalContext` into the model's context
    // (a `decision: "block"` reason does not reach the model): the command's output is kept.
    afterShell: additionalContext(EVENTS),
  },
  identity: { mcpEnv: ['QWEN_CODE_SESSION_ID'], hookEnv: ['QWEN_CODE_SESSION_ID'] },
  tools: { edit: EDIT, readOnly: [], shell: SHELL, hookSeesEveryTool: false },
  // Qwen Code defers MCP tools behind tool_search: all of them cost nothing until used.
  toolSurface: 'all',
  mcpToolName: (t) => `mcp__coord__${t}`,
  result: 'failing-object',
  headless: qwenHeadless,
};
