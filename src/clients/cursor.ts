/**
 * Cursor (SPEC §17; from its docs — its CLI needs a login in the system keychain, so it is untested
 * here): `.cursor/mcp.json`, `.cursor/hooks.json` (one unknown event name voids the whole file),
 * `.cursor/rules/coord.mdc`.
 */
import { join } from 'node:path';
import { additionalContext, json } from './answers.js';
import type { ClientEvent, ClientProfile } from './profile.js';

const EVENTS = { 'pre-edit': 'preToolUse', 'session-start': 'sessionStart', stop: 'stop' } as const;

const MDC_PREFIX = `---
description: coord — the task board and file locks shared by the agents in this repository
alwaysApply: true
---

`;

export const cursor: ClientProfile = {
  kind: 'cursor',
  title: 'Cursor',
  detect: (env) => Boolean(env.CURSOR_TRACE_ID || env.CURSOR_AGENT),
  setup: {
    defaultScope: 'project',
    files(s) {
      const dir = s.scope === 'user' ? join(s.home, '.cursor') : join(s.root, '.cursor');
      const hook = (event: ClientEvent) => ({ command: s.hook(event) });
      return [
        {
          format: 'json',
          path: join(dir, 'mcp.json'),
          what: 'mcpServers.coord',
          edits: [{ op: 'set', path: ['mcpServers', 'coord'], value: { command: s.mcp.command, args: s.mcp.args } }],
        },
        {
          format: 'json',
          path: join(dir, 'hooks.json'),
          what: 'hooks preToolUse, sessionStart, stop',
          edits: [
            { op: 'set', path: ['version'], value: 1, shared: true },
            { op: 'group', path: ['hooks', EVENTS['pre-edit']], group: hook('pre-edit'), mark: s.mark('pre-edit') },
            {
              op: 'group',
              path: ['hooks', EVENTS['session-start']],
              group: hook('session-start'),
              mark: s.mark('session-start'),
            },
            { op: 'group', path: ['hooks', EVENTS.stop], group: hook('stop'), mark: s.mark('stop') },
          ],
        },
        ...(s.scope === 'project'
          ? [
              {
                format: 'section' as const,
                path: join(dir, 'rules', 'coord.mdc'),
                what: 'the coord instructions section',
                prefix: MDC_PREFIX,
              },
            ]
          : []),
      ];
    },
  },
  hooks: {
    events: EVENTS,
    input: { toolName: ['tool_name'], toolInput: ['tool_input'] },
    deny: (reason) => ({
      code: 2,
      stdout: json({ permission: 'deny', user_message: reason, agent_message: reason }),
      stderr: `${reason}\n`,
    }),
    context: additionalContext(EVENTS),
    keepGoing: (reason) => ({ code: 0, stdout: json({ followup_message: reason }), stderr: '' }),
  },
  identity: { mcpEnv: [], hookEnv: [] },
  tools: {
    // Cursor runs preToolUse for every tool: the ones that write are named exactly (`search_replace` edits).
    edit: [
      'Write',
      'Edit',
      'MultiEdit',
      'Delete',
      'edit_file',
      'search_replace',
      'write',
      'delete_file',
      'apply_patch',
    ],
    readOnly: [
      'Read',
      'Grep',
      'Glob',
      'LS',
      'WebSearch',
      'WebFetch',
      'read_file',
      'list_dir',
      'grep',
      'grep_search',
      'codebase_search',
      'file_search',
      'glob_file_search',
      'web_search',
      'fetch_rules',
      'read_lints',
    ],
    shell: ['Shell', 'run_terminal_cmd'],
    hookSeesEveryTool: true,
  },
  toolSurface: 'core',
  mcpToolName: (t) => t,
  result: 'text',
};
