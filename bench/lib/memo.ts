import type { Measurement, Runner } from './types.js';

/**
 * Shares one measurement per round between scenarios with the same floor/peers
 * (e.g. PostgreSQL with 1 and with 2 coord daemons): the first scenario to ask
 * for round r measures it, the next one reuses it.
 */
export function memoByRound(runner: Runner): Runner {
  const cache = new Map<number, Promise<Measurement>>();
  return (round) => {
    let m = cache.get(round);
    if (!m) {
      m = runner(round);
      cache.set(round, m);
    }
    return m;
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
