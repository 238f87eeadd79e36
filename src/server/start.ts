/** The composition root: lock the state directory, open the store, serve HTTP, and shut down cleanly. */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Ctx } from '../core/operation.js';
import { settleEnded } from '../core/ops/settle-holds.js';
import type { Store } from '../core/ports.js';
import { Presence } from '../core/presence.js';
import { systemClock } from '../core/shared/clock.js';
import { VERSION } from '../core/shared/version.js';
import { GitRepos } from '../git/git-repos.js';
import { acquireDaemonLock, isSessionAlive, processStart, watchSessions, writeDaemonInfo } from '../state-dir/index.js';
import { tightenStateDir } from '../state-dir/modes.js';
import { octal } from '../state-dir/paths.js';
import { ensureToken } from '../state-dir/token.js';
import { notifyAttention } from './attention-notify.js';
import { boundHosts, daemonOrigin } from './bind-address.js';
import type { DaemonConfig } from './config.js';
import { keepHolds } from './hold-keeper.js';
import { buildHttpApp } from './http/app.js';
import { integrateInDaemon } from './integrate/daemon-integrator.js';
import { makeLogger } from './logger.js';
import { McpHttp } from './mcp/http.js';
import { parsePublicUrl } from './oauth/public-site.js';
import { openStore } from './open-store.js';
import { machinePorts } from './ports.js';
import { ShellLooks } from './shell-check.js';

export interface RunningDaemon {
  url: string;
  /** The address the socket is bound to (127.0.0.1 unless `--host`). */
  host: string;
  port: number;
  token: string;
  store: Store;
  app: FastifyInstance;
  log: Logger;
  close(): Promise<void>;
}

export class DaemonAlreadyRunning extends Error {
  constructor(
    readonly pid: number | null,
    readonly url: string | null,
    stateDir: string,
  ) {
    super(
      `another coord daemon already serves ${stateDir} (pid ${pid ?? 'unknown'}${url ? `, ${url}` : ''}) — use it, or stop it first`,
    );
  }
}

/** How often the daemon asks git whether change holds are still pending (SPEC §14). */
const HOLD_CHECK_MS = 3000;

export async function startDaemon(
  config: DaemonConfig,
  log: Logger = makeLogger(config.logLevel, undefined, config.logFormat),
): Promise<RunningDaemon> {
  // The lock comes before the database is opened: two daemons never write one state directory.
  const held = acquireDaemonLock(config.stateDir);
  if (!held.ok) throw new DaemonAlreadyRunning(held.pid, held.url, config.stateDir);
  let store: Store | undefined;
  try {
    // Before the store opens: tightening opens and closes coord.db, which would drop SQLite's POSIX locks.
    for (const { path, mode } of tightenStateDir(config.stateDir))
      log.warn({ path, was: octal(mode) }, 'others could read this; made it private to its owner');
    const { token, replaced } = ensureToken(config.stateDir);
    if (replaced) log.warn({ path: config.stateDir }, 'the token file held no usable token; wrote a new one');
    store = await openStore(config.store, config.stateDir, systemClock, log, config.durability);
    const site = config.publicUrl ? parsePublicUrl(config.publicUrl) : undefined;
    const ctx: Ctx = {
      store,
      clock: systemClock,
      presence: new Presence(),
      public_url: site?.url ?? null,
      git: new GitRepos(),
      shell: new ShellLooks(),
      machine: machinePorts,
      idle_after_ms: config.idleAfterMs,
    };
    let port = config.port;
    // Read by the guard at request time: the bound address joins once listen has told us the port.
    const allowedHosts = [...config.allowedHosts];
    const mcp = new McpHttp({
      ctx,
      version: VERSION,
      log,
      streamGraceMs: config.mcpStreamGraceMs,
      sessionAlive: (id) => isSessionAlive(config.stateDir, id),
    });
    const app = buildHttpApp({
      ctx,
      token,
      version: VERSION,
      port: () => port,
      extraHosts: allowedHosts,
      logger: log,
      mcp,
      durability: config.durability,
      stateDir: config.stateDir,
      site,
    });
    // fastify logs its own "Server listening at" line: the daemon says it once, below, with the state and store.
    const level = app.log.level;
    app.log.level = 'warn';
    await app.listen({ host: config.host, port: config.port }).finally(() => {
      app.log.level = level;
    });
    const address = app.server.address();
    port = typeof address === 'object' && address ? address.port : config.port;
    allowedHosts.push(...boundHosts(config.host, port));
    const url = daemonOrigin(config.host, port);
    const start = processStart(process.pid);
    writeDaemonInfo(config.stateDir, { pid: process.pid, url, version: VERSION, ...(start ? { start } : {}) });
    const sweep = setInterval(() => {
      store?.sweep().catch((err) => log.warn({ err }, 'sweep failed'));
    }, config.sweepMs);
    sweep.unref();
    const stopHolds = keepHolds(ctx, log, HOLD_CHECK_MS);
    const stopIntegrating = config.integrate ? integrateInDaemon(ctx, log, config.stateDir, config.integrate) : null;
    const stopNotifying = config.notify
      ? notifyAttention(ctx, log, config.notify.command, config.notify.everyMs)
      : null;
    // SPEC §18: loaded only by a daemon that supervises (`--run`).
    const stopSupervising = config.run
      ? await (await import('./supervise/daemon-supervisor.js')).superviseInDaemon(
          ctx,
          log,
          config.stateDir,
          config.run,
          { url, token },
        )
      : null;
    // Rule 13: a session whose process died (its flock dropped) frees its claims and locks now.
    // The session file is gone once it is reported dead, so a failed end (the store briefly unavailable) is
    // retried here with backoff rather than left to the leases.
    const sessionStore = store;
    let stopping = false;
    const endSession = (session: string, attempt = 0): void => {
      sessionStore.endSession(session).then(
        (ended) => {
          log.info({ session, ...ended }, 'session ended');
          // SPEC §14: its work-tree locks hold on only to what git says is pending.
          settleEnded(ctx).catch((err) => log.warn({ err }, 'settling ended locks failed'));
        },
        (err) => {
          log.warn({ err, session, attempt }, 'ending a session failed; retrying');
          if (!stopping)
            setTimeout(() => endSession(session, attempt + 1), Math.min(30_000, 250 * 2 ** attempt)).unref();
        },
      );
    };
    const stopSessions = watchSessions(
      config.stateDir,
      (session) => {
        void mcp.forget(session);
        endSession(session);
      },
      { onError: (err) => log.warn({ err }, 'session watch failed') },
    );
    log.info(
      { url, state: config.stateDir, store: store.kind, durability: config.durability, public_url: site?.url },
      'coord daemon listening',
    );
    const openStoreRef = store;
    let closing: Promise<void> | undefined;
    return {
      url,
      host: config.host,
      port,
      token,
      store,
      app,
      log,
      close() {
        closing ??= (async () => {
          clearInterval(sweep);
          stopHolds();
          stopNotifying?.();
          await stopSupervising?.();
          await stopIntegrating?.();
          stopping = true;
          stopSessions();
          await app.close();
          await openStoreRef.close();
          rmSync(join(config.stateDir, 'daemon.json'), { force: true });
          held.lock.release();
        })();
        return closing;
      },
    };
  } catch (e) {
    await store?.close();
    held.lock.release();
    throw e;
  }
}
