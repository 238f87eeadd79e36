/** What the hook tests share: one daemon, one repository (no other work trees) and the repository's board; its locks. */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';

export interface OnRepo {
  d: SpawnedDaemon;
  /** The repository's main work tree. */
  root: string;
  board: string;
}

/** Call inside a `describe`: started before its tests, the daemon stopped after them. */
export function daemonOnRepo(): OnRepo {
  const on = {} as OnRepo;
  before(async () => {
    on.d = await spawnDaemon();
    on.root = repoWithWorktrees(0).main;
    on.board = boardForDir(on.root) ?? '';
  });
  after(() => on.d.stop());
  return on;
}

/** A repository whose `files` (each "1\n") are committed, and which ignores build/: for shell-edit tests. */
export function committedRepo(files: string[]): string {
  const repo = repoWithWorktrees(0).main;
  writeFileSync(join(repo, '.gitignore'), 'build/\n');
  for (const f of files) writeFileSync(join(repo, f), '1\n');
  execFileSync('git', ['add', '.'], { cwd: repo });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'y'], { cwd: repo });
  return repo;
}

/** Who holds what on `board`: path → agent. */
export async function holdersOn(d: SpawnedDaemon, board: string): Promise<Record<string, string>> {
  const { locks } = (await (await d.fetch(`/v1/locks?board=${board}`)).json()) as {
    locks: { agent: string; resources: string[] }[];
  };
  return Object.fromEntries(locks.flatMap((l) => l.resources.map((r) => [r, l.agent])));
}

/** `agent` locks `path` on `board` for 600 s. */
export const lockOn = (d: SpawnedDaemon, board: string, agent: string, path: string) =>
  d.fetch('/v1/locks', { method: 'POST', json: { agent, board, resources: [path], lease_s: 600 } });
