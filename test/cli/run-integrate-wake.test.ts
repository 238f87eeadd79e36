import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { integrateLoop } from '../../src/cli/commands/run-integrate.js';
import type { Integrator } from '../../src/git/integrator.js';
import { Waker } from '../../src/supervisor/waker.js';

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

test("coord run's integrator takes its next turn when woken by a submit, not at its next 500 ms look", async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let turns = 0;
    const turn = async () => {
      turns += 1;
      return { progressed: 0 };
    };
    const integrator = { turn } as unknown as Integrator;
    let going = true;
    const waker = new Waker();
    const loop = integrateLoop(integrator, () => going, waker);
    await flush();
    assert.equal(turns, 1, 'the first turn');
    await flush();
    assert.equal(turns, 1, 'nothing to do: it waits');
    waker.wake(); // task.completed on the board's event stream
    await flush();
    assert.equal(turns, 2, 'woken: the next turn at once, with no timer run');
    mock.timers.tick(500);
    await flush();
    assert.equal(turns, 3, 'and its own look after 500 ms still runs');
    going = false;
    waker.wake();
    await loop;
    assert.equal(turns, 4, 'told to end: one last turn');
  } finally {
    mock.timers.reset();
  }
});
