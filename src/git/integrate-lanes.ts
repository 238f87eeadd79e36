/**
 * What lanes (SPEC §15 `--lanes`) need from git and from the integrator's turn: the paths each task's head
 * changes, and two small schedulers — one landing at a time, at most J checks at once.
 *
 * A task's paths are those its change record's commits changed, read again from the head that is merged
 * (`git diff TARGET...HEAD`: every commit of the head not in the target), so a follow-up's fix, submitted
 * on the same branch, counts too.
 */
import { git } from './integrate-git.js';
import { splitZ } from './run-git.js';

/** Each head's changed paths against the target ref; a head git cannot read is absent (it is merged alone). */
export async function changedPaths(repo: string, targetRef: string, heads: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const head of new Set(heads)) {
    const r = await git(repo, ['diff', '--name-only', '-z', '--no-renames', `${targetRef}...${head}`], [128]);
    if (r.code === 0) out.set(head, splitZ(r.stdout));
  }
  return out;
}

/** Runs what it is given one at a time, in the order given (a failure does not stop the next). */
export function oneAtATime(): <T>(fn: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>): Promise<T> => {
    const run = last.then(fn);
    last = run.catch(() => undefined);
    return run;
  };
}

/** Runs what it is given with at most `n` running at once (`Infinity`: no limit). */
export function atMost(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    // A finished run hands its place to the first waiting one, so a newcomer cannot take it meanwhile.
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
