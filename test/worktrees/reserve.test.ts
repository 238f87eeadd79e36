/**
 * SPEC §14 "Resources that are not files", through the real CLI against a real daemon: `coord reserve
 * port` answers the lowest port of the range that no lock holds — on any board — and nothing listens on,
 * locked in one step; `kind:name` keys lock like paths.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { runCoord } from '../hooks/run-hook.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';

const listenOn = (): Promise<{ server: Server; port: number }> =>
  new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      resolve({ server, port: typeof a === 'object' && a ? a.port : 0 });
    });
  });

describe('coord reserve port', () => {
  let d: SpawnedDaemon;
  let busy: { server: Server; port: number };
  before(async () => {
    d = await spawnDaemon();
    busy = await listenOn();
  });
  after(async () => {
    busy.server.close();
    await d.stop();
  });

  const reserve = async (board: string, range: string) => {
    const r = await runCoord(['reserve', 'port', '--range', range, '--board', board, '--json', '--state', d.stateDir], {
      env: { COORD_AGENT: `agent-${board}` },
    });
    return { ...r, out: r.code === 0 ? JSON.parse(r.stdout) : null };
  };

  test('skips a port something listens on, then ports locked on this board and on another board, and locks the one it answers', async () => {
    const p = busy.port;
    const first = await reserve('one', `${p}-${p + 20}`);
    assert.equal(first.code, 0, first.stderr);
    assert.ok(first.out.port > p, 'the listening port is skipped');
    assert.deepEqual(first.out.resources, [`port:${first.out.port}`]);
    const second = await reserve('two', `${p}-${p + 20}`);
    assert.equal(second.code, 0, second.stderr);
    assert.ok(second.out.port > first.out.port, 'a port locked on another board counts');
    const locks = ((await (await d.fetch('/v1/locks?board=two')).json()) as any).locks;
    assert.deepEqual(locks[0].resources, [`port:${second.out.port}`]);
  });

  test('a range with nothing free is a conflict (exit 2) naming the range, and a bad range is refused (exit 1)', async () => {
    const p = busy.port;
    const none = await reserve('one', `${p}-${p}`);
    assert.equal(none.code, 2, none.stdout + none.stderr);
    assert.match(none.stdout + none.stderr, new RegExp(`no free port in ${p}-${p}`));
    const bad = await reserve('one', '9-1');
    assert.equal(bad.code, 1, bad.stdout + bad.stderr);
  });

  test('kind:name keys such as db:dev lock like paths: a second agent is refused naming the holder', async () => {
    const lock = (agent: string) =>
      runCoord(['lock', 'db:dev', '--board', 'one', '--agent', agent, '--state', d.stateDir], { cwd: '/' });
    assert.equal((await lock('migrator')).code, 0);
    const other = await lock('seeder');
    assert.equal(other.code, 2);
    assert.match(other.stderr + other.stdout, /db:dev is held by migrator/);
  });
});
