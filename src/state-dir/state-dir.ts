import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

/** The state directory: `--state`, else `COORD_STATE`, else `~/.coord`. */
export function resolveStateDir(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return resolve(flag ?? env.COORD_STATE ?? join(homedir(), '.coord'));
}

/**
 * os.homedir(), which on POSIX is $HOME whenever it is set (libuv's uv_os_homedir): node:os is loaded only
 * without it, so a hook run on every edit does not load it.
 */
function homedir(): string {
  const home = process.platform === 'win32' ? undefined : process.env.HOME;
  if (home) return home;
  return (createRequire(import.meta.url)('node:os') as typeof import('node:os')).homedir();
}
