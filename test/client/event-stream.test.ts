/**
 * A clean stop of the daemon removes daemon.json; `coord events --follow` and `coord top` (both follow the
 * stream through followEvents) must wait for the restart they are written to wait for, not exit 3.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { followEvents } from '../../src/client/event-stream.js';
import type { CoordEvent } from '../../src/core/model.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';

test('following the events survives a clean daemon stop and resumes with the daemon started after it', async () => {
  let d: SpawnedDaemon = await spawnDaemon();
  const post = async (title: string) => {
    const res = await d.fetch('/v1/tasks', { method: 'POST', json: { agent: 'http', board: 'restart', title } });
    assert.equal(res.status, 201);
  };
  const seen: CoordEvent[] = [];
  let drops = 0;
  let retries = 0;
  let failed: unknown;
  const stop = new AbortController();
  const following = followEvents({
    stateDir: d.stateDir,
    board: 'restart',
    since: 0,
    onEvent: (e) => seen.push(e),
    onDrop: () => drops++,
    onRetry: () => retries++,
    signal: stop.signal,
  }).catch((e: unknown) => {
    if (!stop.signal.aborted) failed = e ?? 'rejected';
  });
  const titled = (t: string) => seen.some((e) => e.data.title === t);
  try {
    await post('before the stop');
    await waitFor(() => titled('before the stop') || failed, 'the first event');
    assert.equal(await d.stop(), 0);
    // daemon.json is gone: the follower must find no daemon at least once, and keep going.
    await waitFor(() => retries > 0 || failed, 'a reconnection that finds no daemon');
    assert.equal(failed, undefined, `followEvents gave up: ${failed}`);
    d = await spawnDaemon({ stateDir: d.stateDir });
    await post('after the restart');
    await waitFor(() => titled('after the restart') || failed, 'the new daemon’s event');
    assert.equal(failed, undefined, `followEvents gave up: ${failed}`);
    assert.equal(drops, 1);
    assert.equal(seen.filter((e) => e.data.title === 'before the stop').length, 1, 'nothing repeated');
  } finally {
    stop.abort();
    await d.stop();
    await following;
  }
});
