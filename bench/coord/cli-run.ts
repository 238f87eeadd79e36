/**
 * coord contender for the CLI start rows: spawns `node bin/coord.js <args>` (dist/) and stops the clock when
 * it exits — what a shell or an agent pays for one command.
 */
import { spawn } from 'node:child_process';
import { trackChild } from '../lib/child.js';
import { COORD_BIN, ensureDist } from './daemon.js';

export async function cliRunOnce(args: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  ensureDist();
  const t0 = performance.now();
  const child = spawn(process.execPath, [COORD_BIN, ...args], { stdio: 'ignore', env: { ...process.env, ...env } });
  trackChild(child);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`coord ${args.join(' ')} exited ${code}`);
  return performance.now() - t0;
}
