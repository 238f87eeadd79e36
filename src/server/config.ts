/**
 * Configuration is one typed object, resolved once at the composition root:
 * defaults ← environment ← flags. Nothing below this reads process.env.
 */
import { isIP } from 'node:net';
import { resolveStateDir } from '../state-dir/state-dir.js';

export interface DaemonConfig {
  stateDir: string;
  port: number;
  /**
   * The address to listen on: loopback unless the user asks. Only a flag sets it, never the
   * environment: putting the board on the network should be a choice made on the command line.
   */
  host: string;
  /** 'sqlite' (embedded, `<state>/coord.db`) or a postgres:// URL. */
  store: string;
  /** More Host header values to accept besides the loopback names (`--allow-host`, COORD_ALLOWED_HOSTS). */
  allowedHosts: string[];
  logLevel: string;
  /** Background sweep period for due leases and ttls; lazy expiry works without it. */
  sweepMs: number;
  /**
   * 'full' (default): every acknowledged write survives power loss (SQLite synchronous=FULL, group commit).
   * 'normal' (`--durability normal`): survives kill -9, not an OS crash or power cut.
   */
  durability: 'full' | 'normal';
}

export const DEFAULT_PORT = 7777;
export const DEFAULT_HOST = '127.0.0.1';

export interface DaemonFlags {
  state?: string;
  port?: string | number;
  store?: string;
  host?: string;
  allowHost?: string[];
  durability?: string;
}

export function resolveDaemonConfig(flags: DaemonFlags, env: NodeJS.ProcessEnv): DaemonConfig {
  const port = Number(flags.port ?? env.COORD_PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`--port must be 0–65535, got ${flags.port}`);
  const durability = flags.durability ?? env.COORD_DURABILITY ?? 'full';
  if (durability !== 'full' && durability !== 'normal')
    throw new Error(`--durability must be full or normal, got ${JSON.stringify(durability)}`);
  return {
    stateDir: resolveStateDir(flags.state, env),
    port,
    host: bindAddress(flags.host),
    store: flags.store ?? env.COORD_STORE ?? 'sqlite',
    allowedHosts: [...(flags.allowHost ?? []), ...(env.COORD_ALLOWED_HOSTS?.split(',').filter(Boolean) ?? [])],
    logLevel: env.COORD_LOG_LEVEL ?? 'info',
    sweepMs: Number(env.COORD_SWEEP_MS ?? 1000),
    durability,
  };
}

/** An IP address literal: a name would resolve to addresses nobody reviewed, and the Host check needs one spelling. */
function bindAddress(flag: string | undefined): string {
  if (flag === undefined || flag === 'localhost') return DEFAULT_HOST;
  const bare = flag.startsWith('[') && flag.endsWith(']') ? flag.slice(1, -1) : flag;
  if (isIP(bare) === 0)
    throw new Error(
      `--host must be an IP address such as 127.0.0.1, 0.0.0.0 or ::, got ${JSON.stringify(flag)} (to accept another Host header, use --allow-host)`,
    );
  return bare;
}
