/**
 * GitHub Copilot CLI headless (SPEC §18): `copilot -p PROMPT --output-format json` (JSONL). coord's MCP server
 * reaches this one process through `--additional-mcp-config` (inline JSON, added to the user's own servers for
 * this session), and its hooks through `--plugin-dir`: a plugin in the launch's own folder whose `hooks.json`
 * is written in the Claude Code format Copilot CLI also runs. No file of the user's is written.
 *
 * Permissions: by default the edit tools (`write`), git (`shell(git:*)`) and coord's tools (`coord`) are
 * allowed for this run, nothing else (Copilot CLI refuses what is not allowed in `-p` mode rather than ask);
 * `--permission-mode allow-all` (or `yolo`) passes `--allow-all`, any other value is its `--mode`
 * (`plan`, `autopilot`, `interactive`) beside the default allowances.
 */
import { join } from 'node:path';
import type { ClientEvent, HeadlessProfile, StreamSignal } from './profile.js';
import { num, obj, parsedLine, sum, waitOf } from './stream-lines.js';

const EDIT = ['edit', 'create'];
const SHELL = ['bash'];

export const copilotHeadless: HeadlessProfile = {
  bin: 'copilot',
  install: 'npm install -g @github/copilot',
  launch(s) {
    if (!s.configDir) throw new Error('Copilot CLI headless needs a folder for its hooks plugin (configDir)');
    const hook = (event: ClientEvent, matcher?: string) => ({
      type: 'command',
      ...(matcher ? { matcher } : {}),
      bash: s.hook(event),
      timeoutSec: 30,
    });
    const hooks = {
      version: 1,
      hooks: {
        PreToolUse: [hook('pre-edit', EDIT.join('|')), hook('pre-shell', SHELL.join('|'))],
        PostToolUse: [hook('post-shell', SHELL.join('|'))],
        SessionStart: [hook('session-start')],
        Stop: [hook('stop')],
      },
    };
    const plugin = join(s.configDir, 'copilot-plugin');
    const manifest = { name: 'coord-run', description: "coord's hooks for one coord run agent", hooks: 'hooks.json' };
    const mcp = { mcpServers: { coord: { type: 'local', command: s.mcp.command, args: s.mcp.args, tools: ['*'] } } };
    const mode = s.permissionMode;
    const all = mode === 'allow-all' || mode === 'yolo';
    return {
      args: [
        '-p',
        s.prompt,
        '--output-format',
        'json',
        '--additional-mcp-config',
        JSON.stringify(mcp),
        '--plugin-dir',
        plugin,
        '--no-ask-user',
        '--no-auto-update',
        ...(all
          ? ['--allow-all']
          : [
              '--allow-tool=write',
              '--allow-tool=shell(git:*)',
              '--allow-tool=coord',
              ...(mode === undefined ? [] : ['--mode', mode]),
            ]),
        ...(s.resume === undefined ? [] : [`--resume=${s.resume}`]),
      ],
      env: {},
      files: [
        { path: join(plugin, 'plugin.json'), content: `${JSON.stringify(manifest, null, 2)}\n` },
        { path: join(plugin, 'hooks.json'), content: `${JSON.stringify(hooks, null, 2)}\n` },
      ],
    };
  },
  read(line) {
    const e = parsedLine(line);
    if (!e) return [];
    const out: StreamSignal[] = [];
    const d = obj(e.data);
    if (e.type === 'assistant.turn_start') out.push({ kind: 'turn' }, { kind: 'state', state: 'working' });
    if (e.type === 'tool.execution_start') out.push({ kind: 'state', state: 'working' });
    // Tokens where the provider reports them (an ephemeral event per model call): summed by the supervisor.
    if (e.type === 'assistant.usage') {
      out.push({
        kind: 'result',
        input_tokens: sum(d.inputTokens, d.cacheReadTokens, d.cacheWriteTokens),
        output_tokens: sum(d.outputTokens, d.reasoningTokens),
        cost_usd: null,
        is_error: false,
        text: null,
      });
    }
    // A failed model call: Copilot CLI retries it itself (honouring the wait the API names) and says so here.
    if (e.type === 'model.call_failure' && num(d.statusCode) === 429) {
      out.push({ kind: 'retry', status: 429, delayMs: waitOf(String(d.errorMessage ?? '')) });
    }
    if (e.type === 'session.error') out.push(...rateLimit(JSON.stringify(d)));
    // The last line: the session to resume, its exit code; no tokens (Copilot CLI counts premium requests).
    if (e.type === 'result') {
      if (typeof e.sessionId === 'string') out.push({ kind: 'session', id: e.sessionId });
      out.push({
        kind: 'result',
        input_tokens: null,
        output_tokens: null,
        cost_usd: null,
        is_error: num(e.exitCode) !== 0,
        text: null,
      });
    }
    return out;
  },
  readErr: (line) => rateLimit(line),
};

/** A 429 in an error text, with the wait it names. */
function rateLimit(text: string): StreamSignal[] {
  if (!/\b429\b|rate.?limit|quota|usage limit|too many requests/i.test(text)) return [];
  return [{ kind: 'retry', status: 429, delayMs: waitOf(text) }];
}
