/**
 * `coord serve --integrate` (SPEC §15): the daemon integrates every board with work in its queue, one
 * Integrator (one slot) per board, woken by the board's events (a completion, an approval, a retry) and
 * once a second for what events do not announce (a dirty target made clean, a branch that moved).
 * git runs here, off every request's path.
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { type CheckPlan, WAKES_INTEGRATOR } from '../../core/integration/integration.js';
import type { Ctx } from '../../core/operation.js';
import { cleanLeftoverChecks } from '../../git/integrate-check.js';
import { defaultTarget } from '../../git/integrate-target.js';
import { Integrator, SlotLost } from '../../git/integrator.js';
import { boardInProcess } from './board-in-process.js';

export interface DaemonIntegrateConfig {
  check: { command: string; timeoutMs: number } | null;
  review: boolean;
  plan?: CheckPlan;
  /** `--push REMOTE`: the target is that remote's branch. */
  push?: string | undefined;
}

export function integrateInDaemon(
  ctx: Ctx,
  log: Logger,
  stateDir: string,
  cfg: DaemonIntegrateConfig,
  everyMs = 1000,
): () => Promise<void> {
  const integrators = new Map<string, Integrator>();
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  const integratorFor = async (board: string): Promise<Integrator | null> => {
    const known = integrators.get(board);
    if (known) return known;
    const repo = await ctx.store.boardRepo(board);
    // The board's target is read again at every turn: `coord target BRANCH` takes effect at the next merge.
    const targetOf = async () => {
      const now = (await ctx.store.boardRepo(board)) ?? repo;
      // A board coord never saw in a repository: each task's own work tree names it (change record).
      return now?.target ?? (now ? await defaultTarget(now.repo) : null) ?? 'main';
    };
    const made = new Integrator(boardInProcess(ctx), {
      board,
      repo: repo?.repo ?? null,
      target: await targetOf(),
      currentTarget: targetOf,
      stateDir,
      check: cfg.check ?? undefined,
      review: cfg.review,
      window: cfg.plan?.window,
      jobs: cfg.plan?.jobs,
      checkRetries: cfg.plan?.retries,
      lanes: cfg.plan?.lanes ? { scopes: cfg.plan.scopes } : undefined,
      maxChecks: cfg.plan?.maxChecks,
      push: cfg.push,
      holder: `coord serve --integrate (pid ${process.pid} on ${hostname()})`,
      onResult: (q, r) => log.info({ board, task: q.task_id, state: r.state }, 'integration'),
    });
    integrators.set(board, made);
    return made;
  };

  const pass = async () => {
    for (const board of await ctx.store.integrationBoards()) {
      if (stopped) return;
      const integrator = await integratorFor(board);
      if (!integrator) continue;
      try {
        for (let i = 0; i < 100 && !stopped; i++) {
          const turn = await integrator.turn();
          if (turn.progressed === 0) break;
        }
      } catch (err) {
        if (!(err instanceof SlotLost) && (err as { code?: string }).code !== 'stale_claim') throw err;
      }
    }
  };

  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await pass().catch((err) => log.warn({ err }, 'integration pass failed'));
      } while (again && !stopped);
    })().finally(() => {
      running = null;
    });
  };

  const started = (async () => {
    const left = await cleanLeftoverChecks(stateDir);
    if (left.length) log.info({ removed: left }, 'removed check work trees left by a crashed integrator');
    wake();
  })().catch((err) => log.warn({ err }, 'integrator start failed'));
  const timer = setInterval(wake, everyMs);
  timer.unref();
  const unsubscribe = ctx.store.subscribe((events) => {
    if (events.some((e) => WAKES_INTEGRATOR.has(e.type))) wake();
  });
  return async () => {
    stopped = true;
    clearInterval(timer);
    unsubscribe();
    await started;
    await running;
    await Promise.all([...integrators.values()].map((i) => i.releaseSlot().catch(() => undefined)));
  };
}
