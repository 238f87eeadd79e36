/**
 * OpenCode (SPEC §17): `opencode.json` (`mcp.coord`, a local server), coord's plugin in its plugins
 * folder — `tool.execute.before` throws to block one edit, and the model reads the error — and
 * `AGENTS.md`. The plugin and the MCP server run in and under the OpenCode process, which names the
 * session. Kilo (kilo.ts) is its fork: the same files under its own names.
 */
import { join } from 'node:path';
import { pluginHooks } from './answers.js';
import { openCodeLoader } from './loaders.js';
import { openCodeHeadless } from './opencode-headless.js';
import type { ClientProfile, HeadlessProfile } from './profile.js';
import { OPENCODE_TOOLS } from './tool-names.js';

/** The tools the plugin guards (src/plugins/opencode.ts says the same). */
const EDIT = OPENCODE_TOOLS.edit;

export function openCodeFamily(o: {
  kind: string;
  title: string;
  /** Its folder under XDG_CONFIG_HOME and in a project (`.<dir>`), and its config file's name. */
  dir: string;
  config: string;
  detect(env: NodeJS.ProcessEnv): boolean;
  headless?: HeadlessProfile;
}): ClientProfile {
  return {
    kind: o.kind,
    title: o.title,
    detect: o.detect,
    setup: {
      defaultScope: 'user',
      files(s) {
        const user = s.scope === 'user';
        const dir = user ? join(s.env.XDG_CONFIG_HOME || join(s.home, '.config'), o.dir) : join(s.root, `.${o.dir}`);
        return [
          {
            format: 'json',
            path: user ? join(dir, o.config) : join(s.root, o.config),
            what: 'mcp.coord',
            edits: [
              {
                op: 'set',
                path: ['mcp', 'coord'],
                value: { type: 'local', command: [s.mcp.command, ...s.mcp.args], enabled: true },
              },
            ],
          },
          {
            format: 'file',
            path: join(dir, 'plugins', 'coord.js'),
            what: "coord's plugin (tool.execute.before blocks an edit of a file another agent holds)",
            content: openCodeLoader(s, o.kind),
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
    // The plugin runs inside the client process and starts the hook; the MCP server is its child too.
    identity: { mcpEnv: [], hookEnv: [] },
    tools: { edit: EDIT, readOnly: [], shell: OPENCODE_TOOLS.shell, hookSeesEveryTool: false },
    toolSurface: 'core',
    mcpToolName: (t) => `coord_${t}`,
    result: 'text',
    ...(o.headless ? { headless: o.headless } : {}),
  };
}

export const opencode: ClientProfile = openCodeFamily({
  kind: 'opencode',
  title: 'OpenCode',
  dir: 'opencode',
  config: 'opencode.json',
  detect: (env) => Boolean(env.OPENCODE_PID || env.OPENCODE),
  headless: openCodeHeadless({
    bin: 'opencode',
    install: 'npm install -g opencode-ai',
    configEnv: 'OPENCODE_CONFIG',
    title: 'OpenCode',
  }),
});
