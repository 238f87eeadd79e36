/**
 * Qwen Code headless (SPEC §18): `qwen -p PROMPT --output-format stream-json`. coord's MCP server reaches this
 * one process through `--mcp-config` (inline JSON, trusted: its tools run without a confirmation), and its hooks
 * through `QWEN_CODE_SYSTEM_DEFAULTS_PATH`, a settings file in the launch's own folder: Qwen Code runs the
 * hooks of that scope beside the user's own (it reads hooks of each scope apart), and every other setting of
 * the user's wins over it. No file of the user's is written.
 *
 * The default approval mode is `auto-edit` with git allowed (`run_shell_command(git)`): the agent edits its
 * work tree and commits without asking; `--permission-mode` passes one of Qwen Code's own (`plan`, `default`,
 * `auto-edit`, `auto`, `yolo`) instead. Qwen Code has no sandbox unless the user's settings turn one on, so a
 * commit in a linked work tree (its index lock in the main repository's `.git/worktrees/<id>/`) just works.
 */
import { join } from 'node:path';
import type { ClientEvent, HeadlessProfile, StreamSignal } from './profile.js';
import { deniedIn, num, obj, parsedLine, sum, waitOf } from './stream-lines.js';

const EDIT = ['edit', 'write_file'];
const SHELL = ['run_shell_command'];

export const qwenHeadless: HeadlessProfile = {
  bin: 'qwen',
  install: 'npm install -g @qwen-code/qwen-code',
  launch(s) {
    if (!s.configDir) throw new Error('Qwen Code headless needs a folder for its hook settings (configDir)');
    const group = (event: ClientEvent, matcher?: string) => ({
      ...(matcher ? { matcher } : {}),
      hooks: [{ type: 'command', command: s.hook(event), timeout: 30_000, name: `coord-${event}` }],
    });
    const settings = {
      hooks: {
        PreToolUse: [group('pre-edit', EDIT.join('|')), group('pre-shell', SHELL.join('|'))],
        PostToolUse: [group('post-shell', SHELL.join('|'))],
        SessionStart: [group('session-start')],
        Stop: [group('stop')],
      },
    };
    const path = join(s.configDir, 'qwen-settings.json');
    const mcp = { mcpServers: { coord: { command: s.mcp.command, args: s.mcp.args, trust: true } } };
    return {
      args: [
        '-p',
        s.prompt,
        '--output-format',
        'stream-json',
        '--mcp-config',
        JSON.stringify(mcp),
        '--approval-mode',
        s.permissionMode ?? 'auto-edit',
        ...(s.permissionMode === undefined ? ['--allowed-tools', 'run_shell_command(git)'] : []),
        ...(s.maxTurns === undefined ? [] : ['--max-session-turns', String(s.maxTurns)]),
        ...(s.resume === undefined ? [] : ['--resume', s.resume]),
      ],
      env: { QWEN_CODE_SYSTEM_DEFAULTS_PATH: path },
      files: [{ path, content: `${JSON.stringify(settings, null, 2)}\n` }],
    };
  },
  read(line) {
    const e = parsedLine(line);
    if (!e) return [];
    const out: StreamSignal[] = [];
    if (
      e.type === 'system' &&
      (e.subtype === 'init' || e.subtype === 'session_start') &&
      typeof e.session_id === 'string'
    )
      out.push({ kind: 'session', id: e.session_id });
    if (e.type === 'assistant') out.push({ kind: 'turn' }, { kind: 'state', state: 'working' });
    if (e.type === 'user') out.push({ kind: 'state', state: 'working' });
    if (e.type === 'result') {
      const u = obj(e.usage);
      out.push({
        kind: 'result',
        input_tokens: sum(u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens),
        output_tokens: num(u.output_tokens),
        cost_usd: num(e.total_cost_usd),
        is_error: e.is_error === true,
        text:
          typeof e.result === 'string'
            ? e.result
            : typeof obj(e.error).message === 'string'
              ? String(obj(e.error).message)
              : null,
      });
      const limit = e.is_error === true ? rateLimit(JSON.stringify(e)) : null;
      if (limit) out.push(limit);
      out.push(...deniedIn(e));
    }
    return out;
  },
  readErr(line) {
    const limit = rateLimit(line);
    return limit ? [limit] : [];
  },
};

/** A 429 in an error text, with the wait it names (Qwen Code gives up after its own retries and says so). */
function rateLimit(text: string): StreamSignal | null {
  if (!/\b429\b|rate.?limit|quota|usage limit/i.test(text)) return null;
  return { kind: 'retry', status: 429, delayMs: waitOf(text) };
}
