/** Gemini CLI (SPEC §10, §17): `settings.json` (MCP server trusted, hooks), `GEMINI.md`. */
import { join } from 'node:path';
import { additionalContext, exit2Deny, json } from './answers.js';
import type { ClientEvent, ClientProfile } from './profile.js';

const EVENTS = { 'pre-edit': 'BeforeTool', 'session-start': 'SessionStart', stop: 'AfterAgent' } as const;
const EDIT = ['write_file', 'replace'];

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
        hooks: [{ type: 'command', command: s.hook(event), name, timeout: 15_000 }],
      });
      return [
        {
          format: 'json',
          path: join(dir, 'settings.json'),
          what: `mcpServers.coord (trust: true); hooks BeforeTool (${EDIT.join('|')}), SessionStart, AfterAgent`,
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
            {
              op: 'group',
              path: ['hooks', EVENTS['session-start']],
              group: group('session-start', 'coord-prime'),
              mark: s.mark('session-start'),
            },
            { op: 'group', path: ['hooks', EVENTS.stop], group: group('stop', 'coord-stop'), mark: s.mark('stop') },
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
  },
  // Gemini CLI gives its MCP server no session id: the client process names the session.
  identity: { mcpEnv: [], hookEnv: [] },
  tools: { edit: EDIT, readOnly: [], shell: ['run_shell_command'], hookSeesEveryTool: false },
  toolSurface: 'core',
  mcpClientNames: ['gemini-cli-mcp-client'],
  mcpToolName: (t) => `mcp_coord_${t}`,
  result: 'failing-object',
};
