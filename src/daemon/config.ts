/**
 * Configuration is one typed object, resolved once at the composition root:
 * defaults ← environment ← flags. Nothing below this reads process.env.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export interface DaemonConfig {
  stateDir: string;
  port: number;
  /** 'sqlite' (embedded, `<state>/coord.db`) or a postgres:// URL. */
  store: string;
  extraHosts: string[];
  logLevel: string;
  /** Background sweep period for due leases and ttls; lazy expiry works without it. */
  sweepMs: number;
}

export const DEFAULT_PORT = 7777;

export function resolveStateDir(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return resolve(flag ?? env.COORD_STATE ?? join(homedir(), '.coord'));
}

export function resolveDaemonConfig(
  flags: { state?: string; port?: string | number; store?: string; host?: string[] },
  env: NodeJS.ProcessEnv,
): DaemonConfig {
  const port = Number(flags.port ?? env.COORD_PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`--port must be 0–65535, got ${flags.port}`);
  return {
    stateDir: resolveStateDir(flags.state, env),
    port,
    store: flags.store ?? env.COORD_STORE ?? 'sqlite',
    extraHosts: [...(flags.host ?? []), ...(env.COORD_ALLOWED_HOSTS?.split(',').filter(Boolean) ?? [])],
    logLevel: env.COORD_LOG_LEVEL ?? 'info',
    sweepMs: Number(env.COORD_SWEEP_MS ?? 1000),
  };
}
