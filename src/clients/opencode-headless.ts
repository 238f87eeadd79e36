/**
 * OpenCode headless (SPEC §18): `opencode run PROMPT --format json` (one JSON event per line). coord's MCP server
 * and its plugin reach this one process through `OPENCODE_CONFIG`, a config file in the launch's own folder that
 * OpenCode merges over the user's global config (`mcp.coord`, and `plugin` naming a loader beside it that
 * imports coord's plugin by absolute URL). No file of the user's is written. Kilo, its fork, reads the same
 * under its own names (`kilo run`, `KILO_CONFIG`).
 *
 * Permissions are OpenCode's own (its defaults let the build agent edit and run git without asking; the user's
 * config may say otherwise): coord adds none. `--permission-mode auto` passes `--auto` (every permission not
 * explicitly denied is granted); any other value names the agent to run (`plan`, `build`, or the user's own).
 */
import { join } from 'node:path';
import type { HeadlessProfile, StreamSignal } from './profile.js';
import { num, obj, parsedLine, sum, waitOf } from './stream-lines.js';

export function openCodeHeadless(o: {
  bin: string;
  install: string;
  configEnv: string;
  title: string;
}): HeadlessProfile {
  return {
    bin: o.bin,
    install: o.install,
    launch(s) {
      if (!s.configDir || !s.pluginModule || !s.hookArgv)
        throw new Error(`${o.title} headless needs a folder for its config and coord's plugin module`);
      const loader = join(s.configDir, `${o.bin}-plugin.js`);
      const path = join(s.configDir, `${o.bin}.json`);
      const config = {
        mcp: { coord: { type: 'local', command: [s.mcp.command, ...s.mcp.args], enabled: true } },
        plugin: [`file://${loader}`],
      };
      const args = { argv: s.hookArgv('pre-edit'), prime: s.hookArgv('session-start') };
      const mode = s.permissionMode;
      return {
        args: [
          'run',
          s.prompt,
          '--format',
          'json',
          // Its errors on stderr: a model call refused with a 429 (which it retries by itself) is said only there.
          '--print-logs',
          '--log-level',
          'ERROR',
          ...(mode === undefined ? [] : mode === 'auto' ? ['--auto'] : ['--agent', mode]),
          ...(s.resume === undefined ? [] : ['--session', s.resume]),
        ],
        env: { [o.configEnv]: path },
        files: [
          { path, content: `${JSON.stringify(config, null, 2)}\n` },
          {
            path: loader,
            content: `// coord run: this agent's plugin (removed when it exits).\nimport { coordPlugin } from ${JSON.stringify(s.pluginModule('opencode'))};\n\nexport const CoordPlugin = coordPlugin(${JSON.stringify(args)});\n`,
          },
        ],
      };
    },
    read(line) {
      const e = parsedLine(line);
      if (!e) return [];
      const out: StreamSignal[] = [];
      const part = obj(e.part);
      if (e.type === 'step_start') {
        if (typeof e.sessionID === 'string') out.push({ kind: 'session', id: e.sessionID });
        out.push({ kind: 'turn' }, { kind: 'state', state: 'working' });
      }
      // OpenCode has no final result event: each step reports its own tokens and cost, summed by the supervisor.
      if (e.type === 'step_finish') {
        const t = obj(part.tokens);
        const cache = obj(t.cache);
        out.push({
          kind: 'result',
          input_tokens: sum(t.input, cache.read, cache.write),
          output_tokens: sum(t.output, t.reasoning),
          cost_usd: num(part.cost),
          is_error: false,
          text: null,
        });
      }
      if (e.type === 'error') {
        const text = JSON.stringify(e.error ?? e);
        out.push(...rateLimit(text));
      }
      return out;
    },
    readErr: (line) => (/level=ERROR/.test(line) ? rateLimit(line) : []),
  };
}

/** A 429 in an error event, with the wait it names. */
function rateLimit(text: string): StreamSignal[] {
  if (!/\b429\b|rate.?limit|quota|usage limit|too many requests/i.test(text)) return [];
  return [{ kind: 'retry', status: 429, delayMs: waitOf(text) }];
}
