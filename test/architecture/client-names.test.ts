/**
 * "Nothing else in the code names a client" (docs/clients.md): what coord knows of one agent client is in its
 * profile (src/clients/) or its plugin (src/plugins/). Outside them, no string in the code (comments and the
 * CLI's prose examples are words, not code) is a client's kind or starts with one (`'claude'`,
 * `'claude/channel'`, `'x-codex-…'`, `'CLAUDE_CODE_…'`), no file is named after one, and no file imports one
 * client's profile file. The files that still do are listed, so the list can only shrink.
 */
import assert from 'node:assert/strict';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { CLIENT_KINDS } from '../../src/clients/index.js';
import { type Reading, readFiles, readSources, tsFiles } from './source-reader.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const SRC = join(ROOT, 'src');
const OWNERS = ['clients/', 'plugins/'];

/**
 * Where a client is still named outside its profile (issue 35), each in a folder another change owns today: move
 * what it says into the client's profile and drop its line here.
 */
const STILL_NAMING: readonly string[] = [
  'src/cli/commands/setup.ts', // 'codex', 'codex-trust': Codex's hook trust step
  'src/cli/setup/codex-toml.ts', // Codex's config.toml writer, named after it
  'src/cli/setup/plans.ts', // 'codex-toml': the plan step that writes it
  'src/client/claude-push.ts', // Claude Code's push channel (CLAUDE_CODE_MESSAGING_*), named after it
  'src/hooks/main.ts', // 'claude', 'gemini': the hook's fallback client and Gemini's event names
  'src/server/mcp/inbox-push.ts', // 'notifications/claude/channel'
  'src/server/mcp/server.ts', // 'claude/channel', 'claude-code': the channel capability
  'src/server/mcp/workspace.ts', // 'x-codex-turn-metadata': Codex's workspace header
];

const kinds = CLIENT_KINDS.join('|');
/** A kind, alone, first or after a `/`: `claude`, `claude-code`, `notifications/claude/channel`, `x-codex-turn`, `CLAUDE_CODE_X`. */
const NAMING = new RegExp(`(^|/)(x-)?(${kinds})([-_/.:#]|$)`, 'i');
const NAMED_FILE = new RegExp(`(^|/)(${kinds})[-.]`);
const PROFILE_FILE = new RegExp(`^clients/(${kinds})[-.]`);

function naming(file: string, r: Reading): string[] {
  const rel = relative(SRC, file);
  if (OWNERS.some((o) => rel.startsWith(o))) return [];
  const where = relative(ROOT, file);
  const out: string[] = [];
  if (NAMED_FILE.test(rel)) out.push(`${where} is named after a client`);
  for (const s of r.strings) if (NAMING.test(s.text)) out.push(`${where}:${s.line} names a client: '${s.text}'`);
  for (const i of r.imports) {
    if (!i.spec.startsWith('.')) continue;
    const target = relative(SRC, resolve(dirname(file), i.spec));
    if (PROFILE_FILE.test(target)) out.push(`${where}:${i.line} imports one client's profile: ${i.spec}`);
  }
  return out;
}

const filesNaming = (readings: Map<string, Reading>) =>
  [...new Set([...readings].flatMap(([f, r]) => naming(f, r).map((x) => x.split(/[: ]/)[0] ?? '')))].sort();

test('no code outside src/clients/ and src/plugins/ names a client, but the files still listed', () => {
  const readings = readFiles(tsFiles(SRC));
  const found = [...readings].flatMap(([f, r]) => naming(f, r));
  assert.deepEqual(filesNaming(readings), [...STILL_NAMING].sort(), found.join('\n'));
});

test('a client named in a string, a file name or an import outside its profile is found; a comment is not', () => {
  const readings = readSources({
    [join(SRC, 'server', 'planted-kind.ts')]: "export const k = 'codex';\n",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the planted source is a template literal
    [join(SRC, 'core', 'planted-header.ts')]: 'export const h = `x-gemini-${1}`;\n',
    [join(SRC, 'cli', 'cursor-rules.ts')]: 'export {};\n',
    [join(SRC, 'hooks', 'planted-import.ts')]:
      "import { claude } from '../clients/claude.js';\nexport const c = claude;\n",
    [join(SRC, 'client', 'planted-method.ts')]: "export const m = 'notifications/qwen/push';\n",
    [join(SRC, 'server', 'planted-comment.ts')]: "// claude reads this as prose\nexport const s = 'a cursor';\n",
    [join(SRC, 'clients', 'planted-own.ts')]: "export const k = 'claude';\n",
  });
  assert.deepEqual(filesNaming(readings), [
    'src/cli/cursor-rules.ts',
    'src/client/planted-method.ts',
    'src/core/planted-header.ts',
    'src/hooks/planted-import.ts',
    'src/server/planted-kind.ts',
  ]);
});
