/**
 * The integrator's slot (SPEC §15): the board's lease that keeps two integrators from working one board at
 * once. It is renewed while a check runs and just before each swap; one that lost it stops (`SlotLost`).
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { TakeSlotOutput } from '../core/integration/integration-schemas.js';
import type { IntegratorBoard } from './integrator-port.js';

/** The slot was taken by another integrator meanwhile: stop this turn, record nothing more. */
export class SlotLost extends Error {
  override readonly name = 'SlotLost';
}

export class IntegrationSlot {
  readonly id = randomBytes(16).toString('hex');
  /** When the slot was last taken or renewed (this process's monotonic clock). */
  private takenAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly board: IntegratorBoard,
    private readonly boardName: string,
    private readonly holder: string,
    private readonly leaseMs: number,
  ) {}

  /** Takes or renews the slot; the answer names the holder when another integrator has it. */
  async take(): Promise<z.output<typeof TakeSlotOutput>> {
    const asked = performance.now();
    const slot = await this.board.takeSlot({
      board: this.boardName,
      holder: this.holder,
      slot_id: this.id,
      lease_s: Math.max(1, Math.round(this.leaseMs / 1000)),
    });
    // Counted from the request, not the answer: the lease began no earlier than that.
    this.takenAt = slot.ok ? asked : Number.NEGATIVE_INFINITY;
    return slot;
  }

  /**
   * A turn's start: the slot taken — or, taken less than a third of its lease ago, kept as it is (as `renew`
   * does before a swap: nobody can take a lease that has not run out). A turn woken by each submit then writes
   * nothing to the board until it has something to record.
   */
  async takeForTurn(): Promise<{ ok: boolean; holder?: string | null | undefined }> {
    if (this.fresh()) return { ok: true };
    return this.take();
  }

  async release(): Promise<void> {
    this.takenAt = Number.NEGATIVE_INFINITY;
    await this.board.releaseSlot({ board: this.boardName, slot_id: this.id });
  }

  private fresh(): boolean {
    return performance.now() - this.takenAt < this.leaseMs / 3;
  }

  /**
   * Before a swap (and while a check runs): the slot must still be ours with time to spare. A lease taken
   * less than a third of its length ago is kept as it is, which saves a write per merge; older, it is
   * renewed, and a lost one stops this integrator before it moves the target.
   */
  async renew(): Promise<void> {
    if (this.fresh()) return;
    const slot = await this.take();
    if (!slot.ok) throw new SlotLost(`the integration slot of ${this.boardName} was taken by ${slot.holder}`);
  }

  /** Runs `work` while renewing the slot (a check can outlast a third of the lease). */
  async renewing<T>(work: () => Promise<T>): Promise<T> {
    const renewing = setInterval(() => void this.renew().catch(() => undefined), Math.max(1000, this.leaseMs / 3));
    try {
      return await work();
    } finally {
      clearInterval(renewing);
    }
  }
}
