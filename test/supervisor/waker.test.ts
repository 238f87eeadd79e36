import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { Waker } from '../../src/supervisor/waker.js';

/** Whether `p` has settled once the microtasks queued so far have run (no clock involved). */
const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void p.then(() => {
    done = true;
  });
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return done;
};

test('a wake while the supervisor loop looks makes its next nap return at once (the freed slot is not left for a second)', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const w = new Waker();
    w.look();
    w.wake(); // an agent ended while the loop was claiming or removing merged trees
    assert.equal(await settled(w.nap(1000)), true);
  } finally {
    mock.timers.reset();
  }
});

test('a nap with no wake lasts until its timeout, and a wake ends it early', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const w = new Waker();
    w.look();
    const idle = w.nap(1000);
    assert.equal(await settled(idle), false);
    mock.timers.tick(1000);
    assert.equal(await settled(idle), true);

    w.look();
    const woken = w.nap(1000);
    assert.equal(await settled(woken), false);
    w.wake();
    assert.equal(await settled(woken), true);
  } finally {
    mock.timers.reset();
  }
});

test('a wake before the last look does not cut the next nap short', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const w = new Waker();
    w.wake();
    w.look(); // the loop looks after that wake: it has seen what the wake was for
    assert.equal(await settled(w.nap(1000)), false);
    mock.timers.tick(1000);
  } finally {
    mock.timers.reset();
  }
});
