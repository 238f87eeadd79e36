import { type ClaimGrant, type CoordEvent, DEFAULT_BOARD, DEFAULT_LEASE_S } from '../model.js';
import { defineOperation } from '../operation.js';
import { ClaimOutput } from '../output-schemas.js';
import type { Store } from '../ports.js';
import { ClaimNextInput } from '../schemas.js';
import { newClaimId } from '../shared/ids.js';
import { afterClaim } from './claim-tree.js';
import { trackTree } from './worktree-context.js';

/** Events after which something may have become claimable on a board. */
const WAKES: ReadonlySet<string> = new Set(['task.created', 'task.requeued', 'task.ready']);

export const claimNext = defineOperation({
  name: 'claim_next',
  summary:
    'Claim the next ready task you may take (priority, then age; blocked tasks are skipped); with wait_s, wait for one.',
  input: ClaimNextInput,
  output: ClaimOutput.nullable(),
  async run(ctx, input): Promise<ClaimGrant | null> {
    const board = input.board ?? DEFAULT_BOARD;
    ctx.presence.touch(input.agent, board, ctx.clock.now());
    const tree = await trackTree(ctx, board, input.agent, input.worktree);
    const cmd = {
      agent: input.agent,
      board,
      kinds: input.kinds ?? [],
      labels: input.labels ?? [],
      lease_ms: (input.lease_s ?? DEFAULT_LEASE_S) * 1000,
      claim_id: newClaimId(),
      session_id: ctx.session_id ?? null,
    };
    const deadline = Date.now() + (input.wait_s ?? 0) * 1000;
    for (;;) {
      // Listen before looking, so a task posted between the look and the wait still wakes us.
      const wake = nextWake(ctx.store, board, ctx.signal);
      try {
        const grant = await ctx.store.claimNext(cmd);
        if (grant) return afterClaim(ctx, grant, tree);
        const remaining = deadline - Date.now();
        if (remaining <= 0 || ctx.signal?.aborted) return null;
        if (!(await wake.wait(remaining))) return null;
      } finally {
        wake.cancel();
      }
    }
  },
});

/** Resolves true on the next wake-up event for this board, false on timeout or abort. */
function nextWake(store: Store, board: string, signal: AbortSignal | undefined) {
  let settle: (woken: boolean) => void = () => {};
  let woken = false;
  const unsubscribe = store.subscribe((events: CoordEvent[]) => {
    if (events.some((e) => e.board === board && WAKES.has(e.type))) {
      woken = true;
      settle(true);
    }
  });
  let timer: NodeJS.Timeout | undefined;
  const onAbort = () => settle(false);
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    wait(ms: number): Promise<boolean> {
      if (woken) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        settle = resolve;
        timer = setTimeout(() => resolve(false), ms);
      });
    },
    cancel(): void {
      unsubscribe();
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}
