import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The state directory: `--state`, else `COORD_STATE`, else `~/.coord`. */
export function resolveStateDir(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return resolve(flag ?? env.COORD_STATE ?? join(homedir(), '.coord'));
}
