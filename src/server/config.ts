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
  /** How long an MCP-over-HTTP session's event stream may stay closed before the session ends (SPEC §5). */
  mcpStreamGraceMs: number;
}

export const DEFAULT_PORT = 7777;
export const DEFAULT_HOST = '127.0.0.1';

export interface DaemonFlags {
  state?: string;
  port?: string | number;
  store?: string;
  host?: string;
  allowHost?: string[];
}

export function resolveDaemonConfig(flags: DaemonFlags, env: NodeJS.ProcessEnv): DaemonConfig {
  const port = Number(flags.port ?? env.COORD_PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`--port must be 0–65535, got ${flags.port}`);
  return {
    stateDir: resolveStateDir(flags.state, env),
    port,
    host: bindAddress(flags.host),
    store: flags.store ?? env.COORD_STORE ?? 'sqlite',
    allowedHosts: [...(flags.allowHost ?? []), ...(env.COORD_ALLOWED_HOSTS?.split(',').filter(Boolean) ?? [])],
    logLevel: env.COORD_LOG_LEVEL ?? 'info',
    sweepMs: Number(env.COORD_SWEEP_MS ?? 1000),
    mcpStreamGraceMs: Number(env.COORD_MCP_GRACE_MS ?? 30_000),
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
