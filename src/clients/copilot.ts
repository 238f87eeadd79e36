/**
 * GitHub Copilot CLI (SPEC §17): `~/.copilot/mcp-config.json`, a hooks file in `~/.copilot/hooks/`
 * written in the Claude Code compatible format it also runs (`PreToolUse` with a matcher, snake_case
 * input, `hookSpecificOutput.permissionDecision: "deny"` — the model reads `Denied by preToolUse hook:
 * <reason>`), `copilot-instructions.md`. Its MCP server's `COPILOT_AGENT_SESSION_ID` is the hooks'
 * `session_id`. Session-start context is a top-level `additionalContext`.
 */
import { join } from 'node:path';
import { claudeAnswers, json } from './answers.js';
import { copilotHeadless } from './copilot-headless.js';
import { projectMcpJson } from './mcp-json.js';
import type { ClientEvent, ClientProfile } from './profile.js';

const EVENTS = {
  'pre-edit': 'PreToolUse',
  'session-start': 'SessionStart',
  stop: 'Stop',
  'pre-shell': 'PreToolUse',
  'post-shell': 'PostToolUse',
  // SPEC §19: its Notification hook (fire and forget) for a permission prompt or a question to the user;
  // UserPromptSubmit when the user answers with a prompt.
  notify: 'Notification',
  resume: 'UserPromptSubmit',
} as const;
/**
 * SPEC §19: the notification types that mean the agent waits for its person (not `shell_completed`,
 * `agent_completed`, or `agent_idle`, which is a background agent's).
 */
const WAITING = ['permission_prompt', 'elicitation_dialog'];
const EDIT = ['edit', 'create'];
/** Its shell tool: SPEC §10 shell edits are seen around it (command hooks: Copilot CLI has no http hooks). */
const SHELL = ['bash'];

export const copilot: ClientProfile = {
  kind: 'copilot',
  title: 'GitHub Copilot CLI',
  detect: (env) => Boolean(env.COPILOT_AGENT_SESSION_ID || env.COPILOT_CLI),
  setup: {
    defaultScope: 'user',
    files(s) {
      const home = s.env.COPILOT_HOME || join(s.home, '.copilot');
      const user = s.scope === 'user';
      const hook = (event: ClientEvent, matcher?: string) => ({
        type: 'command',
        ...(matcher ? { matcher } : {}),
        bash: s.hook(event),
        timeoutSec: 30,
      });
      return [
        user
          ? {
              format: 'json',
              path: join(home, 'mcp-config.json'),
              what: 'mcpServers.coord',
              edits: [
                {
                  op: 'set',
                  path: ['mcpServers', 'coord'],
                  value: { type: 'local', command: s.mcp.command, args: s.mcp.args, tools: ['*'] },
                },
              ],
            }
          : projectMcpJson(s),
        {
          format: 'json',
          path: user ? join(home, 'hooks', 'coord.json') : join(s.root, '.github', 'hooks', 'coord.json'),
          what: `hooks PreToolUse (${EDIT.join('|')}; ${SHELL.join('|')}), PostToolUse (${SHELL.join('|')}), SessionStart, Stop, Notification (${WAITING.join('|')}), UserPromptSubmit`,
          edits: [
            { op: 'set', path: ['version'], value: 1 },
            {
              op: 'group',
              path: ['hooks', EVENTS['pre-edit']],
              group: hook('pre-edit', EDIT.join('|')),
              mark: s.mark('pre-edit'),
            },
            {
              op: 'group',
              path: ['hooks', EVENTS['pre-shell']],
              group: hook('pre-shell', SHELL.join('|')),
              mark: s.mark('pre-shell'),
            },
            {
              op: 'group',
              path: ['hooks', EVENTS['post-shell']],
              group: hook('post-shell', SHELL.join('|')),
              mark: s.mark('post-shell'),
            },
            {
              op: 'group',
              path: ['hooks', EVENTS['session-start']],
              group: hook('session-start'),
              mark: s.mark('session-start'),
            },
            { op: 'group', path: ['hooks', EVENTS.stop], group: hook('stop'), mark: s.mark('stop') },
            // SPEC §19: the agent waits for its person (coord attention), and goes on.
            {
              op: 'group',
              path: ['hooks', EVENTS.notify],
              group: hook('notify', WAITING.join('|')),
              mark: s.mark('notify'),
            },
            { op: 'group', path: ['hooks', EVENTS.resume], group: hook('resume'), mark: s.mark('resume') },
          ],
        },
        {
          format: 'section',
          path: user ? join(home, 'copilot-instructions.md') : join(s.root, '.github', 'copilot-instructions.md'),
          what: 'the coord instructions section',
        },
      ];
    },
  },
  hooks: {
    events: EVENTS,
    input: { toolName: ['tool_name', 'toolName'], toolInput: ['tool_input', 'toolArgs'] },
    ...claudeAnswers(EVENTS),
    // Copilot CLI reads a top-level `additionalContext` (it ignores Claude Code's hookSpecificOutput and
    // plain output here): the model gets it as a user message.
    context: (text) => ({ code: 0, stdout: json({ additionalContext: text }), stderr: '' }),
  },
  identity: { mcpEnv: ['COPILOT_AGENT_SESSION_ID'], hookEnv: [], hookField: 'session_id' },
  tools: { edit: EDIT, readOnly: [], shell: SHELL, hookSeesEveryTool: false },
  toolSurface: 'core',
  mcpToolName: (t) => `coord-${t}`,
  result: 'text',
  headless: copilotHeadless,
};
