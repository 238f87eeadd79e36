/**
 * `coord setup claude|codex|gemini|cursor [--write] [--remove] [--scope user|project]`
 * (SPEC §5, §10): the client's MCP configuration for coord, its hooks and a
 * marked instructions section. Prints what it would write; `--write` writes
 * it (twice changes nothing); `--remove` puts every file back as it was.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CliError } from '../../client/daemon-client.js';
import { CLIENT_KINDS, type ClientKind, isClientKind, PROFILES, profileOf } from '../../clients/index.js';
import { findRepoRoot } from '../../state-dir/board-name.js';
import { findRunningDaemon } from '../../state-dir/daemon-lock.js';
import { resolveStateDir } from '../../state-dir/state-dir.js';
import { ensureToken, hookKeyOf, readToken } from '../../state-dir/token.js';
import { fail } from '../output.js';
import { TomlConflict, trustCodexHooks } from '../setup/codex-toml.js';
import { readText, SetupUnwritable } from '../setup/commit.js';
import { ConfigUnreadable } from '../setup/json-file.js';
import { type Manifest, manifestPath, writeManifest } from '../setup/manifest.js';
import { type FilePlan, type Launch, planFor, type Scope, type SetupContext } from '../setup/plans.js';
import { removePlans } from '../setup/remove-files.js';
import { SETUP_LOCK, withSetupLock } from '../setup/setup-lock.js';
import { type FileOutcome, record, writePlans } from '../setup/write-files.js';

export type { FileOutcome } from '../setup/write-files.js';

interface SetupFlags {
  tools?: string;
  write?: boolean;
  remove?: boolean;
  scope?: string;
  state?: string;
  json?: boolean;
}

export interface SetupOutcome {
  client: ClientKind;
  scope: Scope;
  files: FileOutcome[];
  notes: string[];
}

export function registerSetup(program: Command): void {
  program
    .command('setup')
    .description(
      `Print (or with --write, add) what makes ${Object.values(PROFILES)
        .map((p) => p.title)
        .join(', ')} use coord: MCP server, hooks, instructions`,
    )
    .argument('<client>', CLIENT_KINDS.join(' | '))
    .option('--write', 'write it (running it again changes nothing)')
    .option('--remove', 'take out everything setup added, restoring each file it touched')
    .option(
      '--scope <scope>',
      `user (your home) or project (this repository); default: ${CLIENT_KINDS.map((k) => `${k} ${profileOf(k).setup.defaultScope}`).join(', ')}`,
    )
    .option('--state <dir>', 'pin this state directory in the configuration (default: $COORD_STATE if set)')
    .option(
      '--tools <set>',
      "all: offer every coord tool; core: the core set; lean: its shortest part (default: the client's profile — all where it defers tools behind a search, lean for Gemini CLI, else core)",
    )
    .option('--json', 'print JSON instead of text')
    .action(async (client: string, flags: SetupFlags) => {
      try {
        if (!isClientKind(client)) {
          throw new CliError('invalid_request', `unknown client "${client}": use ${CLIENT_KINDS.join(', ')}`);
        }
        if (flags.tools !== undefined && flags.tools !== 'all' && flags.tools !== 'core' && flags.tools !== 'lean') {
          throw new CliError('invalid_request', `--tools must be all, core or lean, got "${flags.tools}"`);
        }
        if (flags.scope !== undefined && flags.scope !== 'user' && flags.scope !== 'project') {
          throw new CliError('invalid_request', `--scope must be user or project, got "${flags.scope}"`);
        }
        const out = await runSetup(client, flags, process.env, process.cwd());
        process.stdout.write(flags.json ? `${JSON.stringify(out, null, 2)}\n` : report(out));
      } catch (e) {
        if (e instanceof ConfigUnreadable || e instanceof TomlConflict || e instanceof SetupUnwritable)
          fail(flags, new CliError('invalid_request', e.message));
        fail(flags, e);
      }
    });
}

/** The port `coord serve` listens on by default (server/config.ts DEFAULT_PORT, which the CLI does not load). */
const DEFAULT_DAEMON_PORT = 7777;

/**
 * Where the clients' `http` hooks reach the daemon (SPEC §10): the running daemon's URL, else where one
 * starts by default (COORD_PORT, else 7777); and the hook key, from the state directory's token (made now
 * if no daemon ever ran: the daemon keeps the token it finds).
 */
function hookDaemon(
  stateDir: string,
  env: NodeJS.ProcessEnv,
  write: boolean,
): { url: string; hookKey: string } | undefined {
  try {
    // Printing what setup would write makes nothing: without a token yet, it shows the command hooks.
    if (write) mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const token = write ? ensureToken(stateDir).token : readToken(stateDir);
    const url = findRunningDaemon(stateDir)?.url ?? `http://127.0.0.1:${Number(env.COORD_PORT) || DEFAULT_DAEMON_PORT}`;
    return { url: url.replace(/\/+$/, ''), hookKey: hookKeyOf(token) };
  } catch {
    return undefined; // an unreadable state directory: command hooks, as before
  }
}

/** This coord's bin/coord.js (the same path from src/ and dist/), which runs from any working directory. */
const BIN = fileURLToPath(new URL('../../../bin/coord.js', import.meta.url));
/** Its hooks' entry beside it (bin/coord-hook.cjs), which a hook command line names. */
const HOOK_BIN = fileURLToPath(new URL('../../../bin/coord-hook.cjs', import.meta.url));

export async function runSetup(
  client: ClientKind,
  flags: SetupFlags,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<SetupOutcome> {
  const scope = (flags.scope as Scope | undefined) ?? profileOf(client).setup.defaultScope;
  const launch = launchOf(flags.state ?? env.COORD_STATE);
  const root = findRepoRoot(cwd) ?? cwd;
  const stateDir = resolveStateDir(flags.state, env);
  const tools = toolsOverride(flags.tools, client);
  const ctx: SetupContext = {
    client,
    scope,
    root,
    env,
    launch,
    ...(tools ? { tools } : {}),
    ...(scope === 'user' && !flags.remove ? { daemon: hookDaemon(stateDir, env, Boolean(flags.write)) } : {}),
  };
  const plans = planFor(ctx);
  const mpath = manifestPath(stateDir, client, scope, root);
  if (!flags.write && !flags.remove) {
    return {
      client,
      scope,
      files: plans.map((p) => ({ path: p.path, what: p.what, status: 'printed', content: p.apply(read(p.path)) })),
      notes: [],
    };
  }
  // Every file is read, merged and written under one lock: another setup writing here waits its turn.
  const lockDir = lockDirOf(scope, root, env);
  const waiting = () => process.stderr.write(`waiting for another coord setup writing in ${lockDir} (${SETUP_LOCK})\n`);
  // Test seam: COORD_TEST_SETUP_PAUSE holds the lock between reading the files and writing them until that file exists.
  const gate = env.COORD_TEST_SETUP_PAUSE;
  return withSetupLock(lockDir, waiting, () =>
    flags.remove ? remove(ctx, plans, mpath) : write(ctx, plans, mpath, launch, gate),
  );
}

/** How a client starts coord: this node, this coord's bins, and the state directory when one is pinned. */
function launchOf(pinned: string | undefined): Launch {
  return {
    node: process.execPath,
    bin: realpathSync(BIN),
    hookBin: realpathSync(HOOK_BIN),
    stateArgs: pinned ? ['--state', resolve(pinned)] : [],
  };
}

/** `--tools` when it names a set other than the client profile's own (which needs no flag). */
function toolsOverride(flag: string | undefined, client: ClientKind): SetupContext['tools'] {
  const tools = flag === 'all' || flag === 'core' || flag === 'lean' ? flag : undefined;
  return tools && tools !== profileOf(client).toolSurface ? tools : undefined;
}

/** The folder whose setup lock serialises writers: the repository for a project setup, else the home. */
const lockDirOf = (scope: Scope, root: string, env: NodeJS.ProcessEnv) =>
  scope === 'project' ? root : env.HOME || homedir();

/** `--write`: every file and the record of them (setup/write-files.ts), then the client's own step. */
async function write(
  ctx: SetupContext,
  plans: FilePlan[],
  mpath: string,
  launch: Launch,
  gate?: string,
): Promise<SetupOutcome> {
  const { client, scope } = ctx;
  const { manifest, files } = await writePlans(ctx, plans, mpath, gate);
  const notes: string[] = [];
  if (profileOf(client).setup.after === 'codex-trust') {
    const problem = await trustCodex(ctx, plans[0], manifest, files, launch);
    if (problem) notes.push(problem);
  }
  writeManifest(mpath, manifest);
  return { client, scope, files, notes };
}

/**
 * Codex runs only hooks the user trusted: trust the ones setup wrote, record their keys, and take Codex's own
 * rewrite of config.toml as what setup wrote. Returns a note when they could not be trusted.
 */
async function trustCodex(
  ctx: SetupContext,
  toml: FilePlan | undefined,
  manifest: Manifest,
  files: FileOutcome[],
  launch: Launch,
): Promise<string | undefined> {
  const bin = ctx.env.COORD_CODEX_BIN || 'codex';
  const trust = await trustCodexHooks(bin, ctx.root, launch.hookBin, ctx.env);
  manifest.trusted = [...new Set([...manifest.trusted, ...trust.keys])];
  if (toml) {
    const rec = record(manifest, toml.path, null);
    const now = read(toml.path);
    if (now !== null && now !== rec.after) {
      rec.after = now;
      const f = files.find((x) => x.path === toml.path);
      if (f) f.status = 'written';
    }
  }
  if (!trust.problem) return undefined;
  return `the Codex hooks are written but not trusted (${trust.problem}); Codex skips untrusted hooks without a word — trust them in codex with /hooks, or rerun with the codex binary on PATH (or COORD_CODEX_BIN)`;
}

/** `--remove`: every file put back (setup/remove-files.ts). */
async function remove(ctx: SetupContext, plans: FilePlan[], mpath: string): Promise<SetupOutcome> {
  return { client: ctx.client, scope: ctx.scope, ...(await removePlans(plans, mpath)) };
}

function report(out: SetupOutcome): string {
  const lines: string[] = [];
  for (const f of out.files) {
    if (f.status === 'printed') lines.push(`# ${f.path} — ${f.what}\n${f.content ?? ''}`);
    else lines.push(`${f.status.padEnd(9)} ${f.path} (${f.what})`);
  }
  if (out.files.every((f) => f.status === 'printed'))
    lines.push(`(nothing written: run coord setup ${out.client} --write)`);
  for (const n of out.notes) lines.push(`note: ${n}`);
  return `${lines.join('\n')}\n`;
}

const read = readText;
