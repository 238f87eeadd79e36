/** The daemon a suite of real-client tests shares. */
import { after, before } from 'node:test';
import { type SpawnedDaemon, spawnDaemon } from './daemon.js';

/** Call inside a `describe`: one daemon, started before its tests and stopped after them. */
export function suiteDaemon(): SpawnedDaemon {
  let d: SpawnedDaemon | undefined;
  before(async () => {
    d = await spawnDaemon();
  });
  after(async () => {
    await d?.stop();
  });
  const live = (): SpawnedDaemon => {
    if (!d) throw new Error('the suite daemon is used before the suite started it');
    return d;
  };
  return {
    get url() {
      return live().url;
    },
    get token() {
      return live().token;
    },
    get stateDir() {
      return live().stateDir;
    },
    get pid() {
      return live().pid;
    },
    get child() {
      return live().child;
    },
    stderr: () => live().stderr(),
    stop: () => live().stop(),
    kill9: () => live().kill9(),
    fetch: (path, init) => live().fetch(path, init),
  };
}
