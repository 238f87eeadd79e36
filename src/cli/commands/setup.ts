/**
 * `coord setup claude|cursor|codex [--write]`: print the client's MCP
 * configuration for coord, or add it — idempotently, keeping whatever the
 * file already holds (SPEC §5).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CliError } from '../../client/daemon-client.js';
import { findRepoRoot } from '../../state-dir/board-name.js';
import { EXIT } from '../exit-codes.js';
import { fail } from '../output.js';
import {
  CLIENTS,
  type ClientName,
  claudeAddArgs,
  codexSection,
  cursorEntry,
  type Launch,
  type Merge,
  mergeCodexToml,
  mergeCursorJson,
  shellQuote,
} from '../setup/client-config.js';

interface SetupFlags {
  write?: boolean;
  json?: boolean;
  state?: string;
}

interface Outcome {
  client: ClientName;
  /** The file to change (cursor, codex) or the command to run (claude). */
  target: string;
  config: unknown;
  /** printed: not asked to write · written: added now · present: coord was there already · failed: see note. */
  status: 'printed' | 'written' | 'present' | 'failed';
  note: string;
}

export function registerSetup(program: Command): void {
  program
    .command('setup')
    .description('Print (or with --write, add) the MCP configuration that makes Claude Code, Cursor or Codex use coord')
    .argument('<client>', CLIENTS.join(' | '))
    .option('--write', 'add it: run `claude mcp add`, or merge into .cursor/mcp.json / ~/.codex/config.toml')
    .option('--state <dir>', 'pin this state directory in the configuration (default: $COORD_STATE if set)')
    .option('--json', 'print JSON instead of text')
    .action((client: string, flags: SetupFlags) => {
      try {
        if (!(CLIENTS as readonly string[]).includes(client)) {
          throw new CliError('invalid_request', `unknown client "${client}": use ${CLIENTS.join(', ')}`);
        }
        const launch = coordLaunch(flags.state ?? process.env.COORD_STATE);
        const out = SETUP[client as ClientName](launch, flags.write === true);
        process.stdout.write(flags.json ? `${JSON.stringify(out, null, 2)}\n` : `${out.note}\n`);
        if (out.status === 'failed') process.exit(EXIT.usage);
      } catch (e) {
        fail(flags, e);
      }
    });
}

/** This coord's bin/coord.js (the same path from src/ and dist/), which runs from any working directory. */
const BIN = fileURLToPath(new URL('../../../bin/coord.js', import.meta.url));

/** Absolute node and script: GUI-launched clients (Cursor) do not see the shell's PATH or nvm. */
function coordLaunch(stateDir: string | undefined): Launch {
  const state = stateDir ? ['--state', resolve(stateDir)] : [];
  return { command: process.execPath, args: [realpathSync(BIN), 'mcp', ...state] };
}

const SETUP: Record<ClientName, (l: Launch, write: boolean) => Outcome> = {
  claude(l, write) {
    const args = claudeAddArgs(l);
    const line = ['claude', ...args].map(shellQuote).join(' ');
    const base = { client: 'claude' as const, target: line, config: { command: 'claude', args } };
    if (!write) return { ...base, status: 'printed', note: line };
    const known = spawnSync('claude', ['mcp', 'get', 'coord'], { stdio: 'ignore' });
    if (known.error) return { ...base, status: 'failed', note: `could not find the claude CLI on PATH; run:\n${line}` };
    if (known.status === 0)
      return { ...base, status: 'present', note: 'Claude Code already has a coord MCP server (left as it is)' };
    const added = spawnSync('claude', args, { stdio: ['ignore', 'ignore', 'inherit'] });
    if (added.status !== 0) return { ...base, status: 'failed', note: `claude exited ${added.status}; run:\n${line}` };
    return { ...base, status: 'written', note: `added coord to Claude Code: ${line}` };
  },
  cursor(l, write) {
    const path = join(findRepoRoot(process.cwd()) ?? process.cwd(), '.cursor', 'mcp.json');
    const config = cursorEntry(l);
    if (!write) return printed('cursor', path, config, JSON.stringify(config, null, 2));
    return written('cursor', path, config, mergeCursorJson(read(path), l));
  },
  codex(l, write) {
    const path = join(process.env.CODEX_HOME ?? join(homedir(), '.codex'), 'config.toml');
    if (!write) return printed('codex', path, l, codexSection(l).trimEnd());
    return written('codex', path, l, mergeCodexToml(read(path), l));
  },
};

const printed = (client: ClientName, path: string, config: unknown, text: string): Outcome => ({
  client,
  target: path,
  config,
  status: 'printed',
  note: `# add to ${path}\n${text}`,
});

function written(client: ClientName, path: string, config: unknown, merge: Merge): Outcome {
  if (!merge.changed) {
    return {
      client,
      target: path,
      config,
      status: merge.present ? 'present' : 'failed',
      note: `${path} unchanged: ${merge.reason}`,
    };
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, merge.text);
  return { client, target: path, config, status: 'written', note: `added coord to ${path}` };
}

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}
