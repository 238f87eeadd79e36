/**
 * Invariants over the whole audit trail after thousands of races: per task,
 * created first; nothing after a terminal event; each task.claimed carries
 * fence = previous fence + 1; never two claims without a requeue between;
 * requeues and results only of a live claim, naming its fence.
 */
import assert from 'node:assert/strict';
import type { CoordEvent } from '../../src/core/model.js';

const TERMINAL = new Set(['task.completed', 'task.failed', 'task.cancelled', 'task.expired']);

interface Life {
  fence: number;
  claimed: boolean;
  ended: string | null;
  requeues: number;
}

export interface LogFigures {
  events: number;
  tasks: number;
  claims: number;
  requeues: number;
  /** Tasks whose life ended in each terminal event type. */
  ended: Record<string, number>;
  /**
   * Events committed after one stamped later: a racer read the clock before the mid-race move and
   * committed after the other racer, which read it after — the stale-instant interleaving happened.
   */
  stale_instants: number;
}

export function checkEventLog(events: CoordEvent[]): { figures: LogFigures; lives: Map<string, Life> } {
  const lives = new Map<string, Life>();
  let lastSeq = 0;
  let lastAt = '';
  let staleInstants = 0;
  let claims = 0;
  let requeues = 0;
  for (const e of events) {
    assert.ok(e.seq > lastSeq, `seq ${e.seq} after ${lastSeq}`);
    lastSeq = e.seq;
    if (e.at < lastAt) staleInstants += 1;
    lastAt = e.at;
    if (!e.task_id) continue;
    const where = `event ${e.seq} ${e.type} of task ${e.task_id}`;
    let life = lives.get(e.task_id);
    if (e.type === 'task.created') {
      assert.equal(life, undefined, `${where}: created twice`);
      lives.set(e.task_id, { fence: 0, claimed: false, ended: null, requeues: 0 });
      continue;
    }
    assert.ok(life, `${where}: before task.created`);
    life = life!;
    assert.equal(life.ended, null, `${where}: after its terminal ${life.ended}`);
    const fence = e.data.fence;
    switch (e.type) {
      case 'task.claimed':
        assert.equal(life.claimed, false, `${where}: claimed again without a requeue in between`);
        assert.equal(fence, life.fence + 1, `${where}: fence ${fence} after ${life.fence}`);
        life.fence += 1;
        life.claimed = true;
        claims += 1;
        break;
      case 'task.requeued':
        assert.equal(life.claimed, true, `${where}: requeued while not claimed`);
        assert.equal(fence, life.fence, `${where}: requeue names fence ${fence}, the claim was ${life.fence}`);
        life.claimed = false;
        life.requeues += 1;
        requeues += 1;
        break;
      case 'task.completed':
      case 'task.failed':
        assert.equal(life.claimed, true, `${where}: a result without a live claim`);
        assert.equal(fence, life.fence, `${where}: result from fence ${fence}, the claim was ${life.fence}`);
        life.ended = e.type;
        break;
      default:
        assert.ok(TERMINAL.has(e.type), `${where}: unexpected`);
        life.ended = e.type;
    }
  }
  const ended: Record<string, number> = {};
  for (const l of lives.values()) ended[l.ended ?? 'open'] = (ended[l.ended ?? 'open'] ?? 0) + 1;
  const figures = { events: events.length, tasks: lives.size, claims, requeues, ended, stale_instants: staleInstants };
  return { figures, lives };
}
