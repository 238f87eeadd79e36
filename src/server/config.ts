/**
 * Configuration is one typed object, resolved once at the composition root:
 * defaults ← environment ← flags. Nothing below this reads process.env.
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { type CheckPlan, checkPlan } from '../core/integration/integration.js';
import { resolveStateDir } from '../state-dir/state-dir.js';
import { checkAgentsSpec } from '../supervisor/profiles.js';
import { LOG_FORMATS, type LogFormat } from './log-format.js';
import { parsePublicUrl } from './oauth/public-site.js';

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
  /**
   * `pretty` (one readable line per entry) when stderr is a terminal, else `json` (one JSON object per
   * line, for files and supervisors); `--log-format` or COORD_LOG_FORMAT choose either.
   */
  logFormat: LogFormat;
  /** Background sweep period for due leases and ttls; lazy expiry works without it. */
  sweepMs: number;
  /** How long an MCP-over-HTTP session's event stream may stay closed before the session ends (SPEC §5). */
  mcpStreamGraceMs: number;
  /**
   * 'full' (default): every acknowledged write survives power loss (SQLite synchronous=FULL, group commit).
   * 'normal' (`--durability normal`): survives kill -9, not an OS crash or power cut.
   */
  durability: 'full' | 'normal';
  /** `--public-url` (SPEC §16): chat hosts reach /mcp through it over OAuth; null = no remote connectors. */
  publicUrl: string | null;
  /** `--integrate [--check CMD] [--check-timeout S] [--review]` (SPEC §15): the daemon runs the integrator. */
  integrate: {
    check: { command: string; timeoutMs: number } | null;
    review: boolean;
    /** `--window`, `--jobs`, `--check-retries`. */
    plan: CheckPlan;
    /** `--push REMOTE`: each board's target is that remote's branch (SPEC §15 "A shared remote"). */
    push?: string | undefined;
  } | null;
  /** SPEC §19 `--idle-after S`: a claim with no activity this long needs a person (default 15 min). */
  idleAfterMs: number;
  /** SPEC §19 `--notify CMD`: run with each new attention item as JSON on stdin. */
  notify: { command: string; everyMs: number } | null;
  /** `--run SPEC [--run-repo DIR]` (SPEC §18): the daemon runs the supervisor on that repository's board. */
  run: { agents: string; repo: string } | null;
}

export const DEFAULT_PORT = 7777;
export const DEFAULT_HOST = '127.0.0.1';

export interface DaemonFlags {
  state?: string;
  port?: string | number;
  store?: string;
  host?: string;
  allowHost?: string[];
  logFormat?: string;
  durability?: string;
  publicUrl?: string;
  integrate?: boolean;
  check?: string;
  checkTimeout?: string;
  review?: boolean;
  window?: string;
  jobs?: string;
  checkRetries?: string;
  lanes?: boolean;
  scope?: string[];
  idleAfter?: string;
  notify?: string;
  push?: string;
  run?: string;
  runRepo?: string;
}

/** What the composition root knows about the process the daemon runs in. */
export interface DaemonTerminal {
  /** stderr, where the logs go, is a terminal. */
  stderrIsTTY: boolean;
}

export function resolveDaemonConfig(
  flags: DaemonFlags,
  env: NodeJS.ProcessEnv,
  terminal: DaemonTerminal = { stderrIsTTY: false },
): DaemonConfig {
  const port = portOf(flags, env);
  const durability = durabilityOf(flags, env);
  return {
    stateDir: resolveStateDir(flags.state, env),
    port,
    host: bindAddress(flags.host),
    store: flags.store ?? env.COORD_STORE ?? 'sqlite',
    allowedHosts: allowedHosts(flags, env),
    logLevel: env.COORD_LOG_LEVEL ?? 'info',
    logFormat: logFormat(flags.logFormat ?? env.COORD_LOG_FORMAT, terminal),
    sweepMs: Number(env.COORD_SWEEP_MS ?? 1000),
    mcpStreamGraceMs: Number(env.COORD_MCP_GRACE_MS ?? 30_000),
    durability,
    publicUrl: publicUrl(flags.publicUrl ?? env.COORD_PUBLIC_URL),
    integrate: integrateConfig(flags),
    idleAfterMs: idleAfter(flags.idleAfter),
    notify: notifyConfig(flags, env),
    run: runConfig(flags, env),
  };
}

function portOf(flags: DaemonFlags, env: NodeJS.ProcessEnv): number {
  const port = Number(flags.port ?? env.COORD_PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`--port must be 0–65535, got ${flags.port}`);
  return port;
}

function durabilityOf(flags: DaemonFlags, env: NodeJS.ProcessEnv): 'full' | 'normal' {
  const durability = flags.durability ?? env.COORD_DURABILITY ?? 'full';
  if (durability !== 'full' && durability !== 'normal')
    throw new Error(`--durability must be full or normal, got ${JSON.stringify(durability)}`);
  return durability;
}

/** Host headers accepted besides the bind address: --allow-host and COORD_ALLOWED_HOSTS (comma-separated). */
const allowedHosts = (flags: DaemonFlags, env: NodeJS.ProcessEnv): string[] => [
  ...(flags.allowHost ?? []),
  ...(env.COORD_ALLOWED_HOSTS?.split(',').filter(Boolean) ?? []),
];

function notifyConfig(flags: DaemonFlags, env: NodeJS.ProcessEnv): DaemonConfig['notify'] {
  return flags.notify ? { command: flags.notify, everyMs: Number(env.COORD_NOTIFY_MS ?? 2000) } : null;
}

function idleAfter(flag: string | undefined): number {
  if (flag === undefined) return 15 * 60_000;
  const s = Number(flag);
  if (!Number.isFinite(s) || s <= 0) throw new Error(`--idle-after takes seconds, got ${flag}`);
  return s * 1000;
}

function runConfig(flags: DaemonFlags, env: NodeJS.ProcessEnv): DaemonConfig['run'] {
  if (!flags.run) {
    if (flags.runRepo) throw new Error('--run-repo goes with --run');
    return null;
  }
  checkAgentsSpec(flags.run, env.PATH);
  return { agents: flags.run, repo: resolve(flags.runRepo ?? process.cwd()) };
}

function integrateConfig(flags: DaemonFlags): DaemonConfig['integrate'] {
  if (!flags.integrate) {
    if (flags.check || flags.review || flags.push || flags.lanes)
      throw new Error('--check, --review, --lanes and --push go with --integrate');
    return null;
  }
  const timeout = Number(flags.checkTimeout ?? 600);
  if (!Number.isFinite(timeout) || timeout <= 0)
    throw new Error(`--check-timeout takes seconds, got ${flags.checkTimeout}`);
  return {
    check: flags.check ? { command: flags.check, timeoutMs: timeout * 1000 } : null,
    review: flags.review ?? false,
    plan: checkPlan(flags),
    ...(flags.push ? { push: flags.push } : {}),
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

function logFormat(asked: string | undefined, terminal: DaemonTerminal): LogFormat {
  if (asked === undefined || asked === '') return terminal.stderrIsTTY ? 'pretty' : 'json';
  if ((LOG_FORMATS as readonly string[]).includes(asked)) return asked as LogFormat;
  throw new Error(`--log-format must be ${LOG_FORMATS.join(' or ')}, got ${JSON.stringify(asked)}`);
}

/** Checked at start (a typo must not wait for the first chat host to fail) and kept without a trailing slash. */
const publicUrl = (raw: string | undefined): string | null =>
  raw === undefined || raw === '' ? null : parsePublicUrl(raw).url;
