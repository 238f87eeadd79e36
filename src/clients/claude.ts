/** Claude Code (SPEC §10, §17): `~/.claude.json` (or `.mcp.json`), `settings.json` hooks, `CLAUDE.md`. */
import { join } from 'node:path';
import { claudeAnswers } from './answers.js';
import type { ClientEvent, ClientProfile } from './profile.js';

const EVENTS = { 'pre-edit': 'PreToolUse', 'session-start': 'SessionStart', stop: 'Stop' } as const;
const EDIT = ['Edit', 'Write', 'MultiEdit', 'NotebookEdit'];

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
        hooks: [{ type: 'command', command: s.hook(event), timeout: 15 }],
      });
      return [
        {
          format: 'json',
          path: user ? join(s.env.CLAUDE_CONFIG_DIR || s.home, '.claude.json') : join(s.root, '.mcp.json'),
          what: 'mcpServers.coord',
          edits: [{ op: 'set', path: ['mcpServers', 'coord'], value: server }],
        },
        {
          format: 'json',
          path: user ? join(dir, 'settings.json') : join(s.root, '.claude', 'settings.json'),
          what: `hooks PreToolUse (${EDIT.join('|')}), SessionStart, Stop; permissions.allow mcp__coord`,
          edits: [
            {
              op: 'group',
              path: ['hooks', EVENTS['pre-edit']],
              group: group('pre-edit', EDIT.join('|')),
              mark: s.mark('pre-edit'),
            },
            {
              op: 'group',
              path: ['hooks', EVENTS['session-start']],
              group: group('session-start'),
              mark: s.mark('session-start'),
            },
            { op: 'group', path: ['hooks', EVENTS.stop], group: group('stop'), mark: s.mark('stop') },
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
  },
  identity: { mcpEnv: ['CLAUDE_CODE_SESSION_ID'], hookEnv: ['CLAUDE_CODE_SESSION_ID'] },
  tools: { edit: EDIT, readOnly: [], shell: ['Bash'], hookSeesEveryTool: false },
  // Claude Code defers MCP tools behind its tool search: all of them cost nothing until used.
  toolSurface: 'all',
  mcpClientNames: ['claude-code'],
  mcpToolName: (t) => `mcp__coord__${t}`,
  result: 'structured',
};
