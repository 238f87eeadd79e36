/**
 * The small file `coord setup` writes where a client loads plugins or extensions (OpenCode, Kilo,
 * Cline, Pi): it imports coord's shipped module (src/plugins/, built into dist/plugins/) by absolute
 * URL and hands it how to run coord. coord owns the file whole; `--remove` deletes it.
 */
import type { SetupSpec } from './profile.js';

const HEAD = (client: string) =>
  `// coord: written by \`coord setup ${client} --write\`; \`coord setup ${client} --remove\` deletes it.\n`;

/** An OpenCode/Kilo plugin file: an exported plugin function. */
export const openCodeLoader = (s: SetupSpec, client: string): string =>
  `${HEAD(client)}import { coordPlugin } from ${JSON.stringify(s.pluginModule('opencode'))};\n\nexport const CoordPlugin = coordPlugin(${JSON.stringify({ argv: s.hookArgv('pre-edit'), prime: s.hookArgv('session-start') })});\n`;

/** A Cline plugin file: the plugin object as the default export. */
export const clineLoader = (s: SetupSpec): string =>
  `${HEAD('cline')}import { coordPlugin } from ${JSON.stringify(s.pluginModule('cline'))};\n\nexport default coordPlugin(${JSON.stringify({ argv: s.hookArgv('pre-edit'), prime: s.hookArgv('session-start') })});\n`;

/** A Pi extension file: the extension factory as the default export. */
export const piLoader = (s: SetupSpec): string =>
  `${HEAD('pi')}import { coordExtension } from ${JSON.stringify(s.pluginModule('pi'))};\n\nexport default coordExtension(${JSON.stringify({ mcp: [s.mcp.command, ...s.mcp.args], hook: { argv: s.hookArgv('pre-edit') }, prime: s.hookArgv('session-start') })});\n`;
