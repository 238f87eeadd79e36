/**
 * Rule 13 end to end: a real daemon, real agent processes holding session
 * lock files, and kill -9. The dead session's claims and locks come free
 * without waiting for their leases (300 s and 3600 s here); a live session's
 * stay.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import type { Lock, Task } from '../../src/core/model.js';
import { waitFor } from '../live/helpers.js';
import { tempDir } from '../support/ctx.js';
import { ROOT, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';

const HOLDER = new URL('./fixtures/session-holder.ts', import.meta.url).pathname;

interface Holder {
  child: ChildProcess;
  held: { session: string; claim_id: string; lock_id: string };
  kill9(): Promise<void>;
}

async function startHolder(state: string, task: string, agent: string, files: [string, string]): Promise<Holder> {
  const child = spawn(process.execPath, ['--import', 'tsx', HOLDER, state, task, agent, ...files], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    exited.then(() => reject(new Error('session holder exited before it held anything')));
  });
  return {
    child,
    held: JSON.parse(line),
    async kill9() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('locks and claims die with their session (real processes, kill -9)', () => {
  const daemons: SpawnedDaemon[] = [];
  const holders: Holder[] = [];
  after(async () => {
    for (const h of holders) h.child.stdin?.end();
    for (const d of daemons) await d.stop();
  });

  const post = async (d: SpawnedDaemon, title: string) =>
    (
      (await (await d.fetch('/v1/tasks', { method: 'POST', json: { title, agent: 'poster' } })).json()) as {
        task: Task;
      }
    ).task.id;
  const task = async (d: SpawnedDaemon, id: string) =>
    ((await (await d.fetch(`/v1/tasks/${id}`)).json()) as { task: Task }).task;
  const locks = async (d: SpawnedDaemon) => ((await (await d.fetch('/v1/locks')).json()) as { locks: Lock[] }).locks;

  test("kill -9 of an agent process frees its session's locks and requeues its claims at once; another live session keeps what it holds", async (t) => {
    const d = await spawnDaemon();
    daemons.push(d);
    const doomedTask = await post(d, 'doomed');
    const keptTask = await post(d, 'kept');
    const doomed = await startHolder(d.stateDir, doomedTask, 'doomed-agent', ['claimed-a.ts', 'plain-a.ts']);
    const kept = await startHolder(d.stateDir, keptTask, 'kept-agent', ['claimed-b.ts', 'plain-b.ts']);
    holders.push(doomed, kept);
    assert.equal((await task(d, doomedTask)).state, 'claimed');
    assert.equal((await locks(d)).length, 4);

    const killedAt = Date.now();
    await doomed.kill9();
    await waitFor(
      async () => (await task(d, doomedTask)).state === 'queued',
      'the dead session’s claim to be requeued',
    );
    await waitFor(
      async () => !(await locks(d)).some((l) => l.agent === 'doomed-agent'),
      'the dead session’s locks to be freed',
    );
    t.diagnostic(`freed ${Date.now() - killedAt} ms after kill -9 (leases were 300 s and 3600 s)`);

    assert.deepEqual(
      (await locks(d)).map((l) => [l.agent, l.resources]),
      [
        ['kept-agent', ['claimed-b.ts']],
        ['kept-agent', ['plain-b.ts']],
      ],
      'the live session keeps its claim lock and its plain lock',
    );
    assert.equal((await task(d, keptTask)).claimed_by, 'kept-agent');
    // The requeued task is claimable at once, files and all.
    const again = await d.fetch(`/v1/tasks/${doomedTask}/claim`, {
      method: 'POST',
      json: { agent: 'next', files: ['claimed-a.ts', 'plain-a.ts'] },
    });
    assert.equal(again.status, 200);
    // The dead claim is fenced off.
    const stale = await d.fetch(`/v1/tasks/${doomedTask}/heartbeat`, {
      method: 'POST',
      json: { claim_id: doomed.held.claim_id },
    });
    assert.equal(((await stale.json()) as { error: { code: string } }).error.code, 'stale_claim');
    const events = (
      (await (await d.fetch('/v1/events?since=0&format=json')).json()) as {
        events: { type: string; data: { reason?: string } }[];
      }
    ).events;
    assert.ok(events.some((e) => e.type === 'task.requeued' && e.data.reason === 'session_ended'));
  });

  test('a session that died while no daemon ran is freed by the next daemon when it starts', async () => {
    const state = tempDir('coord-sessions-');
    const first = await spawnDaemon({ stateDir: state });
    const id = await post(first, 'left behind');
    await first.stop();
    const holder = await startHolder(state, id, 'orphan', ['o1.ts', 'o2.ts']);
    holders.push(holder);
    await holder.kill9();
    const second = await spawnDaemon({ stateDir: state });
    daemons.push(second);
    await waitFor(async () => (await task(second, id)).state === 'queued', 'the orphaned claim to be requeued');
    await waitFor(async () => (await locks(second)).length === 0, 'the orphaned locks to be freed');
  });
});
