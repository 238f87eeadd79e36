/** Gemini CLI (SPEC §10, §17): `settings.json` (MCP server trusted, hooks), `GEMINI.md`. */
import { join } from 'node:path';
import { additionalContext, exit2Deny, json } from './answers.js';
import { geminiHeadless } from './gemini-headless.js';
import type { ClientEvent, ClientProfile } from './profile.js';

const EVENTS = {
  'pre-edit': 'BeforeTool',
  'session-start': 'SessionStart',
  stop: 'AfterAgent',
  'pre-shell': 'BeforeTool',
  'post-shell': 'AfterTool',
  // SPEC §19: Gemini CLI's Notification hook fires when a tool waits for the user's confirmation
  // (`notification_type: "ToolPermission"`, interactive sessions only: headless mode refuses such a tool);
  // BeforeAgent, when the user sends a prompt.
  notify: 'Notification',
  resume: 'BeforeAgent',
} as const;
const EDIT = ['write_file', 'replace'];
const SHELL = ['run_shell_command'];

export const gemini: ClientProfile = {
  kind: 'gemini',
  title: 'Gemini CLI',
  // Gemini CLI also sets CLAUDE_PROJECT_DIR for its hooks: its own variables decide.
  detect: (env) => Boolean(env.GEMINI_SESSION_ID || env.GEMINI_CLI),
  setup: {
    defaultScope: 'user',
    files(s) {
      const dir = s.scope === 'user' ? join(s.home, '.gemini') : join(s.root, '.gemini');
      const group = (event: ClientEvent, name: string, matcher?: string) => ({
        ...(matcher ? { matcher } : {}),
        // 30 s (SPEC §10: long enough that a busy daemon is waited for), in milliseconds.
        hooks: [{ type: 'command', command: s.hook(event), name, timeout: 30_000 }],
      });
      return [
        {
          format: 'json',
          path: join(dir, 'settings.json'),
          what: `mcpServers.coord (trust: true); hooks BeforeTool (${EDIT.join('|')}, ${SHELL.join('|')}), AfterTool (${SHELL.join('|')}), SessionStart, AfterAgent, Notification (ToolPermission), BeforeAgent`,
          edits: [
            // trust: true — Gemini CLI offers an untrusted server's tools only after a confirmation, which headless mode cannot give.
            {
              op: 'set',
              path: ['mcpServers', 'coord'],
              value: { command: s.mcp.command, args: s.mcp.args, trust: true },
            },
            {
              op: 'group',
              path: ['hooks', EVENTS['pre-edit']],
              group: group('pre-edit', 'coord-pre-edit', EDIT.join('|')),
              mark: s.mark('pre-edit'),
            },
            // SPEC §10 shell edits: git's view of the work tree before and after each shell command.
            {
              op: 'group',
              path: ['hooks', EVENTS['pre-shell']],
              group: group('pre-shell', 'coord-pre-shell', SHELL.join('|')),
              mark: s.mark('pre-shell'),
            },
            {
              op: 'group',
              path: ['hooks', EVENTS['post-shell']],
              group: group('post-shell', 'coord-post-shell', SHELL.join('|')),
              mark: s.mark('post-shell'),
            },
            {
              op: 'group',
              path: ['hooks', EVENTS['session-start']],
              group: group('session-start', 'coord-prime'),
              mark: s.mark('session-start'),
            },
            { op: 'group', path: ['hooks', EVENTS.stop], group: group('stop', 'coord-stop'), mark: s.mark('stop') },
            // SPEC §19: the agent waits for its person (coord attention), and goes on.
            {
              op: 'group',
              path: ['hooks', EVENTS.notify],
              group: group('notify', 'coord-notify', 'ToolPermission'),
              mark: s.mark('notify'),
            },
            {
              op: 'group',
              path: ['hooks', EVENTS.resume],
              group: group('resume', 'coord-resume'),
              mark: s.mark('resume'),
            },
          ],
        },
        {
          format: 'section',
          path: s.scope === 'user' ? join(dir, 'GEMINI.md') : join(s.root, 'GEMINI.md'),
          what: 'the coord instructions section',
        },
      ];
    },
  },
  hooks: {
    events: EVENTS,
    input: { toolName: ['tool_name'], toolInput: ['tool_input'] },
    deny: exit2Deny,
    // Plain session-start output reaches the user only.
    context: additionalContext(EVENTS),
    keepGoing: (reason) => ({ code: 0, stdout: json({ decision: 'block', reason }), stderr: '' }),
    // After a shell command, additionalContext is appended to the tool's result, which keeps the
    // command's output; a block there would replace it.
    afterShell: additionalContext(EVENTS),
  },
  // Gemini CLI gives its MCP server no session id: the client process names the session.
  identity: { mcpEnv: [], hookEnv: [] },
  tools: { edit: EDIT, readOnly: [], shell: SHELL, hookSeesEveryTool: false },
  // Gemini CLI adds its own `wait_for_previous` argument (about 260 B) to every tool it offers: 14 core
  // tools came to 7,788 B a request. The lean set (10 tools) fits 6,000 B; the rest is `coord` in its shell.
  toolSurface: 'lean',
  addsPerTool: 260,
  mcpClientNames: ['gemini-cli-mcp-client'],
  mcpToolName: (t) => `mcp_coord_${t}`,
  result: 'failing-object',
  headless: geminiHeadless,
};
