/**
 * Cline CLI (SPEC §17): `cline_mcp_settings.json` (initialize timeout 3 s by default: setup writes 30),
 * coord's plugin in `~/.cline/plugins/` — `hooks.beforeTool` returns `{skip: true, reason}` to block one
 * edit (its hook files can only abort the whole run) — and a rules file. Its model reads every tool
 * result as the whole `CallToolResult` JSON.
 */
import { join } from 'node:path';
import { pluginHooks } from './answers.js';
import { clineLoader } from './loaders.js';
import type { ClientProfile } from './profile.js';
import { CLINE_TOOLS } from './tool-names.js';

const EDIT = CLINE_TOOLS.edit;

export const cline: ClientProfile = {
  kind: 'cline',
  title: 'Cline',
  detect: (env) => Boolean(env.CLINE_CONNECTOR_CLI_LAUNCH || env.CLINE_BUILD_ENV),
  setup: {
    defaultScope: 'user',
    files(s) {
      const user = s.scope === 'user';
      const home = s.env.CLINE_DIR || join(s.home, '.cline');
      const data = s.env.CLINE_DATA_DIR || join(home, 'data');
      return [
        {
          format: 'json',
          path: s.env.CLINE_MCP_SETTINGS_PATH || join(data, 'settings', 'cline_mcp_settings.json'),
          what: 'mcpServers.coord (timeout 30 s)',
          edits: [
            {
              op: 'set',
              path: ['mcpServers', 'coord'],
              value: { command: s.mcp.command, args: s.mcp.args, timeout: 30, disabled: false },
            },
          ],
        },
        {
          format: 'file',
          path: user ? join(home, 'plugins', 'coord.js') : join(s.root, '.cline', 'plugins', 'coord.js'),
          what: "coord's plugin (hooks.beforeTool skips an edit of a file another agent holds)",
          content: clineLoader(s),
        },
        {
          format: 'section',
          path: user ? join(home, 'rules', 'coord.md') : join(s.root, '.clinerules', 'coord.md'),
          what: 'the coord instructions section',
        },
      ];
    },
  },
  hooks: pluginHooks,
  // Sessions, MCP servers and the plugin sandbox run under one Cline process (a detached hub): it
  // names the session; the plugin's hook is told to start from the sandbox (COORD_HOOK_FROM_PID).
  identity: { mcpEnv: [], hookEnv: [] },
  tools: { edit: EDIT, readOnly: [], shell: CLINE_TOOLS.shell, hookSeesEveryTool: false },
  toolSurface: 'core',
  mcpToolName: (t) => `coord__${t}`,
  result: 'whole-json',
};
