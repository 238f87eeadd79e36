/** Codex CLI (SPEC §10, §17): `config.toml` (MCP server, hooks and their trust), `AGENTS.md`. */
import { join } from 'node:path';
import { claudeAnswers } from './answers.js';
import type { ClientProfile } from './profile.js';

const EVENTS = {
  'pre-edit': 'PreToolUse',
  'session-start': 'SessionStart',
  stop: 'Stop',
  'pre-shell': 'PreToolUse',
  'post-shell': 'PostToolUse',
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
          what: '[mcp_servers.coord], [[hooks.PreToolUse]] apply_patch and Bash, [[hooks.PostToolUse]] Bash, [[hooks.SessionStart]], [[hooks.Stop]], their [hooks.state] trust, mcp_optional_startup_grace_ms',
          block: {
            mcpCommand: s.mcp.command,
            mcpArgs: s.mcp.args,
            preEdit: s.hook('pre-edit'),
            preShell: s.hook('pre-shell'),
            postShell: s.hook('post-shell'),
            prime: s.hook('session-start'),
            stop: s.hook('stop'),
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
};
