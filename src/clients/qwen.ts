/**
 * Qwen Code (SPEC §17), a Gemini CLI fork with Claude Code's hook format: `~/.qwen/settings.json`
 * (the MCP server trusted; `PreToolUse`, `SessionStart`, `Stop`), `QWEN.md`. Its MCP server and its
 * hooks both see `QWEN_CODE_SESSION_ID`. It defers MCP tools behind `tool_search`.
 */
import { join } from 'node:path';
import { additionalContext, claudeAnswers } from './answers.js';
import type { ClientEvent, ClientProfile } from './profile.js';

const EVENTS = { 'pre-edit': 'PreToolUse', 'session-start': 'SessionStart', stop: 'Stop' } as const;
const EDIT = ['edit', 'write_file'];

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
      return [
        {
          format: 'json',
          path: join(dir, 'settings.json'),
          what: `mcpServers.coord (trust: true); hooks PreToolUse (${EDIT.join('|')}), SessionStart, Stop`,
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
              path: ['hooks', EVENTS['session-start']],
              group: group('session-start'),
              mark: s.mark('session-start'),
            },
            { op: 'group', path: ['hooks', EVENTS.stop], group: group('stop'), mark: s.mark('stop') },
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
  },
  identity: { mcpEnv: ['QWEN_CODE_SESSION_ID'], hookEnv: ['QWEN_CODE_SESSION_ID'] },
  tools: { edit: EDIT, readOnly: [], shell: ['run_shell_command'], hookSeesEveryTool: false },
  // Qwen Code defers MCP tools behind tool_search: all of them cost nothing until used.
  toolSurface: 'all',
  mcpToolName: (t) => `mcp__coord__${t}`,
  result: 'failing-object',
};
