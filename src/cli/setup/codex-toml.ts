/**
 * Codex's config.toml: coord's tables go in one marked block at the end
 * (`# coord:begin` … `# coord:end`), and the one top-level key it needs in a
 * marked block at the top (a root key after a table would land inside that
 * table). Codex runs a hook only once it is trusted: `trustCodexHooks` asks
 * `codex app-server` for each hook's `currentHash` (`hooks/list`) and records
 * it (`config/batchWrite`), as Codex's own /hooks screen does.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const BEGIN = '# coord:begin — added by `coord setup codex`; `coord setup codex --remove` takes it out';
const END = '# coord:end';
const TOP_BEGIN = '# coord:begin top';
const TOP_END = '# coord:end top';

/** TOML basic strings: JSON's escaping is valid TOML for any path. */
const s = (v: string) => JSON.stringify(v);

export interface CodexCommands {
  mcpCommand: string;
  mcpArgs: string[];
  preEdit: string;
  preShell: string;
  postShell: string;
  prime: string;
  stop: string;
  /** SPEC §19 (coord attention): before Codex asks its user to approve (PermissionRequest), and at a prompt. */
  notify?: string;
  resume?: string;
}

const hookTable = (event: string, command: string) => [
  '',
  `[[hooks.${event}]]`,
  '',
  `[[hooks.${event}.hooks]]`,
  'type = "command"',
  `command = ${s(command)}`,
  'timeout = 30',
];

export function codexBlock(c: CodexCommands): string {
  return [
    BEGIN,
    '[mcp_servers.coord]',
    `command = ${s(c.mcpCommand)}`,
    `args = [${c.mcpArgs.map(s).join(', ')}]`,
    // `coord mcp` may start the daemon first: give it time.
    'startup_timeout_sec = 60',
    '',
    '[[hooks.PreToolUse]]',
    'matcher = "apply_patch"',
    '',
    '[[hooks.PreToolUse.hooks]]',
    'type = "command"',
    `command = ${s(c.preEdit)}`,
    'timeout = 30',
    '',
    // SPEC §10 shell edits: Codex 0.171 runs PreToolUse/PostToolUse for its shell tool (exec_command) with
    // tool_name "Bash" and tool_input.command, and the call's tool_use_id in both.
    '[[hooks.PreToolUse]]',
    'matcher = "Bash"',
    '',
    '[[hooks.PreToolUse.hooks]]',
    'type = "command"',
    `command = ${s(c.preShell)}`,
    'timeout = 30',
    '',
    '[[hooks.PostToolUse]]',
    'matcher = "Bash"',
    '',
    '[[hooks.PostToolUse.hooks]]',
    'type = "command"',
    `command = ${s(c.postShell)}`,
    'timeout = 30',
    '',
    '[[hooks.SessionStart]]',
    '',
    '[[hooks.SessionStart.hooks]]',
    'type = "command"',
    `command = ${s(c.prime)}`,
    'timeout = 30',
    '',
    '[[hooks.Stop]]',
    '',
    '[[hooks.Stop.hooks]]',
    'type = "command"',
    `command = ${s(c.stop)}`,
    'timeout = 30',
    ...(c.notify ? hookTable('PermissionRequest', c.notify) : []),
    ...(c.resume ? hookTable('UserPromptSubmit', c.resume) : []),
    END,
    '',
  ].join('\n');
}

/** `codex exec` drops an MCP server still starting after a short grace; coord's may be starting the daemon. */
export const TOP_BLOCK = `${TOP_BEGIN}\nmcp_optional_startup_grace_ms = 20000\n${TOP_END}\n`;

export class TomlConflict extends Error {}

export function upsertCodexToml(text: string | null, block: string): string {
  let out = text ?? '';
  const hasGrace = /^\s*mcp_optional_startup_grace_ms\s*=/m.test(strip(out, TOP_BEGIN, TOP_END));
  const ownTop = out.includes(TOP_BEGIN);
  if (!ownTop && !hasGrace) out = TOP_BLOCK + out;
  const found = find(out, BEGIN, END);
  if (found) {
    // Codex writes its trust entries for coord's hooks inside coord's block: they are not a difference.
    const existing = out.slice(found.start, found.end);
    if (withoutState(existing) === block) return out;
    return out.slice(0, found.start) + block + out.slice(found.end);
  }
  if (/^\s*\[\s*mcp_servers\s*\.\s*("coord"|'coord'|coord)\s*\]/m.test(out)) {
    throw new TomlConflict('it already has an [mcp_servers.coord] of its own — remove it, then run setup again');
  }
  const sep = out === '' || out.endsWith('\n\n') ? '' : out.endsWith('\n') ? '\n' : '\n\n';
  return `${out}${sep}${block}`;
}

/** Without coord's blocks and the trust entries recorded for its hooks. */
export function removeCodexToml(text: string | null, trustedKeys: string[]): string | null {
  if (text === null) return null;
  let out = strip(strip(text, TOP_BEGIN, TOP_END), BEGIN, END);
  for (const key of trustedKeys) {
    const header = `[hooks.state.${s(key)}]`;
    const at = out.indexOf(header);
    if (at < 0) continue;
    const next = out.slice(at + header.length).search(/^\s*\[/m);
    const end = next < 0 ? out.length : at + header.length + next;
    out = out.slice(0, at) + out.slice(end).replace(/^\n+/, '');
  }
  // A [hooks.state] table Codex added for coord's entries and left empty.
  out = out.replace(/^\[hooks\.state\]\n(?=\s*(\[|$))/m, '').replace(/\n{3,}/g, '\n\n');
  out = out.replace(/\n+$/, out.trim() === '' ? '' : '\n');
  return out === '' ? null : out;
}

/** The text without `[hooks.state]` tables (Codex's record of which hooks are trusted). */
function withoutState(text: string): string {
  return text
    .replace(/^\[hooks\.state(\.[^\]]+)?\]\n(?:(?!\[|# coord:end).*\n)*/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\n\n(# coord:end)/, '\n$1');
}

function strip(text: string, begin: string, end: string): string {
  const f = find(text, begin, end);
  if (!f) return text;
  let head = text.slice(0, f.start);
  if (head.endsWith('\n\n') && f.end >= text.length) head = head.slice(0, -1);
  return head + text.slice(f.end);
}

function find(text: string, begin: string, end: string): { start: number; end: number } | null {
  const start = text.indexOf(begin);
  if (start < 0) return null;
  const e = text.indexOf(`\n${end}`, start);
  if (e < 0) return null;
  let stop = e + end.length + 1;
  if (text[stop] === '\n') stop++;
  return { start, end: stop };
}

export interface Trust {
  /** Keys trusted now or already (recorded so --remove can take them back). */
  keys: string[];
  /** Why trust could not be recorded, when it could not. */
  problem?: string;
}

interface HookEntry {
  key: string;
  command: string;
  currentHash: string;
  trustStatus: string;
}

/**
 * Trust the hooks whose command carries `mark`, through `codex app-server`. Needs the codex binary
 * (`COORD_CODEX_BIN`, else `codex` on PATH); without it, says so and trusts nothing.
 */
export async function trustCodexHooks(bin: string, cwd: string, mark: string, env: NodeJS.ProcessEnv): Promise<Trust> {
  let server: ReturnType<typeof spawn>;
  try {
    server = spawn(bin, ['app-server'], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
  } catch (e) {
    return { keys: [], problem: `could not run ${bin}: ${(e as Error).message}` };
  }
  const started = new Promise<string | undefined>((resolve) => {
    server.once('error', (e) => resolve(`could not run ${bin} app-server: ${e.message}`));
    server.once('spawn', () => resolve(undefined));
  });
  const failed = await started;
  if (failed) return { keys: [], problem: failed };
  const pending = new Map<number, (m: { result?: unknown; error?: { message?: string } }) => void>();
  const lines = createInterface({ input: server.stdout as NodeJS.ReadableStream });
  lines.on('line', (line) => {
    try {
      const m = JSON.parse(line) as { id?: number; result?: unknown; error?: { message?: string } };
      if (typeof m.id === 'number') pending.get(m.id)?.(m);
    } catch {
      // not a message of ours
    }
  });
  let next = 0;
  const ask = (method: string, params: unknown) =>
    new Promise<{ result?: unknown; error?: { message?: string } }>((resolve, reject) => {
      const id = ++next;
      const timer = setTimeout(() => reject(new Error(`codex app-server did not answer ${method}`)), 30_000);
      pending.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      server.stdin?.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  try {
    await ask('initialize', { clientInfo: { name: 'coord-setup', version: '1' } });
    server.stdin?.write(`${JSON.stringify({ method: 'initialized' })}\n`);
    const list = async (): Promise<HookEntry[]> => {
      const r = await ask('hooks/list', { cwds: [cwd] });
      if (r.error) throw new Error(`hooks/list: ${r.error.message}`);
      const data = (r.result as { data?: { hooks?: HookEntry[] }[] })?.data ?? [];
      return data.flatMap((d) => d.hooks ?? []).filter((h) => h.command.includes(mark));
    };
    const ours = await list();
    const untrusted = ours.filter((h) => h.trustStatus !== 'trusted');
    if (untrusted.length > 0) {
      const value = Object.fromEntries(untrusted.map((h) => [h.key, { trusted_hash: h.currentHash }]));
      const w = await ask('config/batchWrite', { edits: [{ keyPath: 'hooks.state', value, mergeStrategy: 'upsert' }] });
      if (w.error) throw new Error(`config/batchWrite: ${w.error.message}`);
      const after = await list();
      const still = after.filter((h) => h.trustStatus !== 'trusted');
      if (still.length > 0)
        return {
          keys: ours.map((h) => h.key),
          problem: `codex still lists ${still.length} coord hook(s) as ${still[0]?.trustStatus}`,
        };
    }
    return { keys: ours.map((h) => h.key) };
  } catch (e) {
    return { keys: [], problem: (e as Error).message };
  } finally {
    server.kill();
  }
}
