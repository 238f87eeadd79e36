/**
 * SPEC §15: the integrator's slot on a real board. A turn keeps a slot it took less than a third of its lease
 * ago without writing (nobody can take a lease that has not run out), so an integrator woken by every submit
 * does not write the board at each wake — and the slot still keeps a second integrator out.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { IntegratorBoard } from '../../src/git/integrator-port.js';
import { IntegrationSlot } from '../../src/git/integrator-slot.js';
import { boardInProcess } from '../../src/server/integrate/board-in-process.js';
import { harness, makeSqliteStore } from '../support/ctx.js';

/** The board, counting the slot's writes. */
function counted(board: IntegratorBoard) {
  const writes = { take: 0, release: 0 };
  const b: IntegratorBoard = {
    ...board,
    takeSlot: (input) => {
      writes.take++;
      return board.takeSlot(input);
    },
    releaseSlot: (input) => {
      writes.release++;
      return board.releaseSlot(input);
    },
  };
  return { board: b, writes };
}

describe("the integrator's slot", () => {
  test('turns within a third of the lease write the slot once, and a second integrator is kept out all along', async () => {
    const h = await harness(makeSqliteStore);
    const { board, writes } = counted(boardInProcess(h.ctx));
    const first = new IntegrationSlot(board, 'default', 'first', 60_000);
    const second = new IntegrationSlot(boardInProcess(h.ctx), 'default', 'second', 60_000);
    for (let i = 0; i < 5; i++) {
      assert.equal((await first.takeForTurn()).ok, true, `turn ${i + 1}`);
      const other = await second.takeForTurn();
      assert.equal(other.ok, false, 'the second integrator waits');
      assert.equal(other.holder, 'first');
    }
    assert.equal(writes.take, 1, "the first integrator's later turns wrote nothing");
  });

  test('a turn after the slot was released takes it again', async () => {
    const h = await harness(makeSqliteStore);
    const { board, writes } = counted(boardInProcess(h.ctx));
    const first = new IntegrationSlot(board, 'default', 'first', 60_000);
    await first.takeForTurn();
    await first.release();
    const second = new IntegrationSlot(boardInProcess(h.ctx), 'default', 'second', 60_000);
    assert.equal((await second.takeForTurn()).ok, true, 'released: another integrator may take it');
    const again = await first.takeForTurn();
    assert.equal(again.ok, false, 'the first must ask, and finds it held');
    assert.equal(writes.take, 2);
  });

  test('a slot older than a third of its lease is taken again at the turn', async () => {
    const h = await harness(makeSqliteStore);
    const { board, writes } = counted(boardInProcess(h.ctx));
    const slot = new IntegrationSlot(board, 'default', 'first', 30);
    await slot.takeForTurn();
    await sleep(25);
    await slot.takeForTurn();
    assert.equal(writes.take, 2);
  });
});
