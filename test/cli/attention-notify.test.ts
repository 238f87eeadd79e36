/**
 * SPEC §19 `coord serve --notify CMD`: CMD runs with each new attention item as JSON on stdin — once per
 * item, however often the list is made again; an item that was resolved and comes back is new.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../support/ctx.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';

describe('coord serve --notify', () => {
  let d: SpawnedDaemon;
  const told = join(tempDir('coord-notify-'), 'told.jsonl');
  before(async () => {
    // The list is made again every 20 ms as well as after each commit: many looks, still one call per item.
    d = await spawnDaemon({ args: ['--notify', `cat >> '${told}'`], env: { COORD_NOTIFY_MS: '20' } });
  });
  after(() => d?.stop());

  const lines = () =>
    existsSync(told)
      ? readFileSync(told, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { id: string; kind: string; what: string; command: string; since: string })
      : [];
  const calls = (id: string) => lines().filter((l) => l.id === id).length;
  const wait = (agent: string, waiting: string | null) =>
    d.fetch('/v1/attention/waiting', { method: 'POST', json: { agent, board: 'nb', waiting } });
  const told1 = (id: string, n = 1) => waitFor(() => calls(id) >= n, `${id} told ${n} time(s)`);

  test('each new item is told once, as JSON on stdin; one resolved and back is told again', async () => {
    await wait('claude#n1', 'Claude needs your permission to use Bash');
    await told1('agent_waiting:claude#n1');
    const [first] = lines();
    assert.equal(first?.kind, 'agent_waiting');
    assert.equal(first?.what, 'claude#n1 is waiting for you');
    assert.ok(first?.command && Date.parse(first.since) > 0);

    // Told again by its client, and many looks later (n2 is told after them): still one call.
    await wait('claude#n1', 'Claude needs your permission to use Bash');
    await d.fetch('/v1/tasks', { method: 'POST', json: { agent: 'p', board: 'nb', title: 'an event' } });
    await wait('claude#n2', 'Claude is waiting for your input');
    await told1('agent_waiting:claude#n2');
    assert.equal(calls('agent_waiting:claude#n1'), 1);

    // Resolved (and seen gone: n3 is told after it), then back: a new item.
    await wait('claude#n1', null);
    await wait('claude#n3', 'a question');
    await told1('agent_waiting:claude#n3');
    await wait('claude#n1', 'Claude needs your permission to use Bash');
    await told1('agent_waiting:claude#n1', 2);
    assert.equal(calls('agent_waiting:claude#n2'), 1);
  });
});
