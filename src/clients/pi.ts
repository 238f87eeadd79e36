/**
 * Pi (SPEC §17): no MCP by design. coord's extension in `~/.pi/agent/extensions/` starts `coord mcp
 * --client pi` and offers its tools to Pi's model, and blocks an edit from `tool_call` (`{block: true,
 * reason}`); `AGENTS.md` holds the instructions. The extension's MCP server and hook are children of
 * the Pi process, which names the session.
 */
import { join } from 'node:path';
import { pluginHooks } from './answers.js';
import { piLoader } from './loaders.js';
import type { ClientProfile } from './profile.js';
import { PI_TOOLS } from './tool-names.js';

export const pi: ClientProfile = {
  kind: 'pi',
  title: 'Pi',
  detect: (env) => Boolean(env.PI_CODING_AGENT_DIR || env.PI_CODING_AGENT),
  setup: {
    defaultScope: 'user',
    files(s) {
      const user = s.scope === 'user';
      const dir = user ? s.env.PI_CODING_AGENT_DIR || join(s.home, '.pi', 'agent') : join(s.root, '.pi');
      return [
        {
          format: 'file',
          path: join(dir, 'extensions', 'coord.ts'),
          what: "coord's extension (coord's tools; tool_call blocks an edit of a file another agent holds)",
          content: piLoader(s),
        },
        {
          format: 'section',
          path: user ? join(dir, 'AGENTS.md') : join(s.root, 'AGENTS.md'),
          what: 'the coord instructions section',
        },
      ];
    },
  },
  hooks: pluginHooks,
  identity: { mcpEnv: [], hookEnv: [] },
  tools: { edit: PI_TOOLS.edit, readOnly: [], shell: PI_TOOLS.shell, hookSeesEveryTool: false },
  toolSurface: 'core',
  mcpToolName: (t) => `coord_${t}`,
  result: 'text',
};
