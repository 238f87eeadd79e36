/**
 * `coord guard install|remove` (SPEC §10): the git pre-commit hook that
 * refuses a commit staging a path another agent holds. It goes in the
 * repository's common hooks directory, which every worktree shares (or
 * `core.hooksPath` when set); a hook already there is kept and chained.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CliError } from '../../client/daemon-client.js';
import { fail } from '../output.js';
import { shellQuote } from '../setup/plans.js';

const MARK = '# coord:guard';
const CHAINED = 'pre-commit.coord-chained';
const BIN = fileURLToPath(new URL('../../../bin/coord.js', import.meta.url));

export function registerGuard(program: Command): void {
  const guard = program
    .command('guard')
    .description('git pre-commit guard: refuse commits that stage files other agents hold');
  guard
    .command('install')
    .description("add coord's pre-commit hook (chaining any hook already there)")
    .option('--state <dir>', 'pin this state directory in the hook')
    .option('--json', 'print JSON instead of text')
    .action((flags: { state?: string; json?: boolean }) => {
      try {
        const out = installGuard(process.cwd(), flags.state ?? process.env.COORD_STATE);
        process.stdout.write(flags.json ? `${JSON.stringify(out)}\n` : `${out.note}\n`);
      } catch (e) {
        fail(flags, e);
      }
    });
  guard
    .command('remove')
    .description("take coord's pre-commit hook out, putting back the one it chained")
    .option('--json', 'print JSON instead of text')
    .action((flags: { json?: boolean }) => {
      try {
        const out = removeGuard(process.cwd());
        process.stdout.write(flags.json ? `${JSON.stringify(out)}\n` : `${out.note}\n`);
      } catch (e) {
        fail(flags, e);
      }
    });
}

export function hooksDir(cwd: string): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd, encoding: 'utf8' });
  const custom = git('config', '--get', 'core.hooksPath').stdout.trim();
  if (custom) {
    const top = git('rev-parse', '--show-toplevel').stdout.trim() || cwd;
    return isAbsolute(custom) ? custom : resolve(top, custom);
  }
  const common = git('rev-parse', '--git-common-dir');
  if (common.status !== 0) throw new CliError('invalid_request', `${cwd} is not in a git repository`);
  return join(resolve(cwd, common.stdout.trim()), 'hooks');
}

export function guardScript(stateDir: string | undefined): string {
  const state = stateDir ? ` --state ${shellQuote(resolve(stateDir))}` : '';
  return `#!/bin/sh
${MARK} v1 — refuses a commit that stages a file another agent holds a lock on.
# COORD_GUARD=warn only warns, COORD_GUARD=off skips it. Remove with: coord guard remove
${shellQuote(process.execPath)} ${shellQuote(realpathSync(BIN))} hook pre-commit${state} || exit $?
if [ -x "$0.coord-chained" ]; then exec "$0.coord-chained" "$@"; fi
`;
}

export function installGuard(
  cwd: string,
  stateDir: string | undefined,
): { path: string; chained: boolean; note: string } {
  const dir = hooksDir(cwd);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'pre-commit');
  const existing = existsSync(path) ? readFileSync(path, 'utf8') : null;
  if (existing !== null && !existing.includes(MARK)) renameSync(path, join(dir, CHAINED));
  const script = guardScript(stateDir);
  if (existing !== script) writeFileSync(path, script);
  chmodSync(path, 0o755);
  const chained = existsSync(join(dir, CHAINED));
  return {
    path,
    chained,
    note: `coord guard installed: ${path}${chained ? ` (runs the hook that was there after it: ${CHAINED})` : ''}`,
  };
}

export function removeGuard(cwd: string): { path: string; note: string } {
  const dir = hooksDir(cwd);
  const path = join(dir, 'pre-commit');
  if (!existsSync(path) || !readFileSync(path, 'utf8').includes(MARK)) {
    return { path, note: `no coord guard in ${dir}` };
  }
  rmSync(path);
  if (existsSync(join(dir, CHAINED))) renameSync(join(dir, CHAINED), path);
  return { path, note: `coord guard removed from ${path}` };
}
