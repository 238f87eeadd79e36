/**
 * The integration queue (SPEC §15) with the board in process on real git, as the window and lanes tests use it:
 * one branch per task (made in one `git fast-import`, with fixed dates, so the same ids in any repository),
 * each task completed and queued in order, an integrator on the board; and the property both hold, that a
 * random task set ends as one-at-a-time leaves it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { operations as op } from '../../src/core/operations.js';
import { Integrator } from '../../src/git/integrator.js';
import { boardInProcess } from '../../src/server/integrate/board-in-process.js';
import { git, testRepo } from '../git/repo.js';
import { harness, makeSqliteStore, tempDir } from '../support/ctx.js';

/** One commit per task off `main` (fixed dates, so the same ids in any repository): `files` path → text. */
export function makeBranches(main: string, tasks: Record<string, string>[]): string[] {
  const from = git(main, 'rev-parse', 'main');
  let stream = '';
  tasks.forEach((files, i) => {
    const ms = Object.entries(files).map(([p, t]) => `M 644 inline ${p}\ndata ${Buffer.byteLength(t)}\n${t}\n`);
    stream += `commit refs/heads/t-${i}\ncommitter t <t@example.com> 1700000000 +0000\ndata 6\ntask ${i}\nfrom ${from}\n${ms.join('')}\n`;
  });
  execFileSync('git', ['fast-import', '--quiet'], { cwd: main, input: stream });
  return tasks.map((_, i) => git(main, 'rev-parse', `t-${i}`));
}

export interface QueueOptions {
  check: string;
  window: number;
  /** The integrator's holder name. */
  holder: string;
  jobs?: number | undefined;
  lanes?: boolean;
  /** The target's files besides README.md. */
  base?: Record<string, string>;
  /** A turn with nothing to do before the tasks are queued. */
  idleFirst?: boolean;
}

/** A board with one completed task per branch, queued in order, and an integrator on it. */
export async function queued(tasks: Record<string, string>[], opts: QueueOptions) {
  const h = await harness(makeSqliteStore);
  const r = testRepo({ 'README.md': 'base\n', ...opts.base });
  const integrator = new Integrator(boardInProcess(h.ctx), {
    board: 'default',
    repo: r.main,
    target: 'main',
    stateDir: tempDir('coord-state-'),
    holder: opts.holder,
    check: { command: opts.check, timeoutMs: 60_000 },
    window: opts.window,
    jobs: opts.jobs,
    lanes: opts.lanes ? { scopes: [] } : undefined,
  });
  // A turn with nothing to do first, as a running integrator has had: it must leave the window as it was.
  if (opts.idleFirst) assert.equal((await integrator.turn()).progressed, 0);
  const ids: string[] = [];
  for (const [i, head] of makeBranches(r.main, tasks).entries()) {
    const { task } = await h.call(op.createTask, { agent: 'planner', title: `task ${i}` });
    const grant = await h.call(op.claimTask, { task_id: task.id, agent: 'codex#1' });
    await h.call(op.submitResult, {
      task_id: task.id,
      claim_id: grant.claim_id,
      status: 'completed',
      agent: 'codex#1',
    });
    await h.call(op.queueIntegration, { task_id: task.id, branch: `t-${i}`, head });
    ids.push(task.id);
  }
  const state = async (id: string) => (await h.call(op.showTask, { task_id: id })).task.integration?.state;
  /** Turns until one does nothing; then each task's integration state, in queue order. */
  const drain = async () => {
    while ((await integrator.turn()).progressed > 0);
    const states = [];
    for (const id of ids) states.push(await state(id));
    return states;
  };
  return { h, r, ids, integrator, state, drain };
}

/** A task of a random set: it changes `src/<file>.txt`; a red one also adds `red-<i>`, which CHECK refuses. */
export interface Spec {
  file: string;
  red: boolean;
}

export const CHECK = 'test -z "$(ls | grep ^red-)"';

/** Each spec's files, for `queued`. */
export const specFiles = (specs: Spec[]): Record<string, string>[] =>
  specs.map((s, i) => ({ [`src/${s.file}.txt`]: `task ${i}\n`, ...(s.red ? { [`red-${i}`]: 'red\n' } : {}) }));

/** Random task sets of 2 to `maxLength` tasks over `files`. */
export const specs = (files: string[], maxLength: number) =>
  fc.array(fc.record({ file: fc.constantFrom(...files), red: fc.boolean() }), { minLength: 2, maxLength });

/**
 * `prove` on `example`, then on two random values of `arb`: CI time, as each run integrates its tasks twice
 * with real checks.
 */
export function propertyRuns<T>(arb: fc.Arbitrary<T>, example: T, prove: (value: T) => Promise<void>): Promise<void> {
  return fc.assert(fc.asyncProperty(arb, prove), { numRuns: 3, examples: [[example]] });
}
