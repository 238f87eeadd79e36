/**
 * Floor for `coord mcp` spawn → initialize: spawning `node -e 0` and waiting for
 * it to exit — the least a Node program that starts and answers can cost.
 * Measured from the bench process itself (that is where an MCP client would
 * spawn coord from). One call = one round: the median of `n` spawns, in ms.
 */
import { spawn } from 'node:child_process';
import { median } from '../lib/stats.js';

export function spawnOnce(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`node -e 0 exited ${code}`)),
    );
  });
}

export async function nodeE0(n: number): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) xs.push(await spawnOnce());
  return median(xs);
}
