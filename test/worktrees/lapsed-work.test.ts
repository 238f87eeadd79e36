/**
 * SPEC §14 "No lost work" when a lease lapses: session end, lapse and release alike leave a note. The daemon's
 * background sweep is off here, so the lapse is found by the next claim itself (the common case: it is the
 * next claim's transaction that requeues a lapsed claim) — its answer must still carry the line.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCoord } from '../hooks/run-hook.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { type Repo, repoWithWorktrees } from './git-repo.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' });

describe('work left behind by a lapsed lease (SPEC §14)', () => {
  let d: SpawnedDaemon;
  let repo: Repo;
  before(async () => {
    d = await spawnDaemon({ env: { COORD_SWEEP_MS: '3600000' } });
    repo = repoWithWorktrees(1);
  });
  after(async () => {
    await d.stop();
  });

  test('a claim that lapsed with two commits and an uncommitted file leaves a note on the task, and the next claimant’s answer carries it', async () => {
    const tree = repo.linked[0] ?? '';
    const coord = async (cwd: string, ...args: string[]) => {
      const r = await runCoord([...args, '--json', '--state', d.stateDir], { cwd });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      return JSON.parse(r.stdout);
    };
    const { task } = await coord(repo.main, 'post', 'parse dates', '--agent', 'lead');
    const grant = await coord(tree, 'claim', task.id, '--agent', 'lapser', '--lease', '1');
    appendFileSync(join(tree, 'src/a.ts'), 'export const one = 1;\n');
    git(tree, 'commit', '-qam', 'one');
    appendFileSync(join(tree, 'src/a.ts'), 'export const two = 2;\n');
    git(tree, 'commit', '-qam', 'two');
    writeFileSync(join(tree, 'src/new.ts'), 'export const unsaved = 3;\n');
    const head = git(tree, 'rev-parse', 'HEAD').trim();
    // Nothing reads the board meanwhile: the next claim is what finds the lapse.
    await waitFor(() => Date.now() > Date.parse(grant.lease_until) + 50, 'the lease to lapse');

    const next = (await (
      await d.fetch(`/v1/tasks/${task.id}/claim`, { method: 'POST', json: { agent: 'heir' } })
    ).json()) as { work_left?: string; reclaimed: boolean };
    const line = `work left in ../project-wt1 on branch wt1: 2 commits since the claim (${head.slice(0, 6)} "two"), uncommitted: src/new.ts`;
    assert.equal(next.work_left, line, JSON.stringify(next));
    const shown = (await (await d.fetch(`/v1/tasks/${task.id}`)).json()) as { task: { notes: { text: string }[] } };
    assert.deepEqual(
      shown.task.notes.filter((n) => n.text.startsWith('work left in ')).map((n) => n.text),
      [line],
      'one note, whoever noted it first',
    );
  });
});
