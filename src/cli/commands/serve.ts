import type { Command } from 'commander';
import type { DaemonConfig, DaemonFlags } from '../../server/config.js';
import { EXIT } from '../exit-codes.js';

interface ServeFlags extends DaemonFlags {
  json?: boolean;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run the coord daemon for a state directory (one per directory)')
    .option('--port <n>', 'TCP port (default 7777; 0 picks a free one)')
    .option('--host <addr>', 'IP address to listen on (default 127.0.0.1); any other is reachable from other machines')
    .option('--allow-host <host...>', 'extra Host header values to accept, e.g. coord.local:7777')
    .option('--state <dir>', 'state directory (default: $COORD_STATE or ~/.coord)')
    .option('--store <store>', 'sqlite (default, <state>/coord.db) or postgres://user:pass@host/db')
    .option(
      '--durability <mode>',
      'full (default: every acknowledged write survives power loss) or normal (survives kill -9, not a power cut)',
    )
    .option(
      '--public-url <url>',
      'https://HOST[/prefix] where a tunnel reaches this daemon: chat hosts (claude.ai, ChatGPT) connect to /mcp over OAuth',
    )
    .option('--integrate', "run the integrator: merge finished work into each board's target in order (SPEC §15)")
    .option('--check <cmd>', 'with --integrate: run CMD in a temporary work tree of each merged commit first')
    .option('--check-timeout <s>', 'with --check: its time limit in seconds (default 600)')
    .option('--review', 'with --integrate: hold each ready merge until `coord approve ID`')
    .option('--window <n>', 'with --check: merge and check the next N tasks at once (default 1)')
    .option('--jobs <j>', 'with --window: how many checks run at once (default N; with --lanes, of all lanes: no cap)')
    .option('--lanes', 'with --check: check tasks that change no common file at the same time, in separate lanes')
    .option('--scope <glob...>', "with --lanes: the files under GLOB count as one (e.g. 'src/ui/**'); repeatable")
    .option('--check-retries <k>', 'with --check: run a failing check again up to K times (default 0)')
    .option('--idle-after <s>', 'a claim with no activity for S seconds needs a person (coord attention; default 900)')
    .option('--notify <cmd>', 'run CMD (sh -c) with each new attention item as JSON on stdin, once per item')
    .option('--push <remote>', "with --integrate: the target is this git remote's branch, pushed by compare-and-swap")
    .option('--run <spec>', 'run the supervisor too: start agents for ready tasks, e.g. claude:2,codex:1 (SPEC §18)')
    .option(
      '--run-repo <dir>',
      "with --run: the repository whose board it supervises (default: the current directory's)",
    )
    .option('--json', 'print the listening address as JSON')
    .option(
      '--log-format <format>',
      'pretty (default on a terminal) or json (default otherwise; also COORD_LOG_FORMAT)',
    )
    .action(async (flags: ServeFlags) => {
      // The server is loaded here, not at the top: every other command (and `coord mcp`'s start-up) stays
      // free of fastify, the stores and the MCP server SDK.
      const { resolveDaemonConfig } = await import('../../server/config.js');
      const { startFailure } = await import('../../server/start-failure.js');
      let config: DaemonConfig;
      try {
        config = resolveDaemonConfig(flags, process.env, { stderrIsTTY: process.stderr.isTTY === true });
      } catch (e) {
        process.stderr.write(`coord: ${e instanceof Error ? e.message : String(e)}\n`);
        process.exit(EXIT.usage);
      }
      // The board, its WAL and the logs are the user's alone, like the token.
      process.umask(0o077);
      const { makeLogger } = await import('../../server/logger.js');
      const { DaemonAlreadyRunning, startDaemon } = await import('../../server/start.js');
      const { exposureWarning } = await import('../../server/bind-address.js');
      const log = makeLogger(config.logLevel, undefined, config.logFormat);
      // The handlers go in before the daemon starts: the ready line tells a supervisor it may signal, and
      // a SIGTERM landing before them would kill the process by the default action — no clean close, the
      // lock and daemon.json left behind. A signal during start-up stops the daemon as soon as it is up.
      let daemon: Awaited<ReturnType<typeof startDaemon>> | undefined;
      let stopping: string | undefined;
      const stop = (signal: string) => {
        stopping ??= signal;
        if (!daemon) return;
        log.info({ signal: stopping }, 'shutting down');
        daemon.close().then(
          () => process.exit(0),
          (err) => {
            log.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
      try {
        daemon = await startDaemon(config, log);
        if (stopping) return stop(stopping);
        // Started: the young generation may grow again and hot code is optimized again (main.ts held both
        // during start-up); these are V8's defaults.
        (await import('node:v8')).setFlagsFromString('--semi-space-growth-factor=2 --turbofan');
        const exposed = exposureWarning(daemon.host, daemon.port);
        if (exposed) process.stderr.write(`coord: warning: ${exposed}\n`);
        const line = flags.json
          ? JSON.stringify({
              url: daemon.url,
              pid: process.pid,
              state: config.stateDir,
              store: daemon.store.kind,
              durability: config.durability,
              ...(config.publicUrl ? { public_url: config.publicUrl } : {}),
            })
          : `coord ${daemon.store.kind} daemon on ${daemon.url} · state ${config.stateDir} · durability ${config.durability}${
              config.durability === 'normal' ? ' (a power cut can lose acknowledged writes)' : ''
            }${config.publicUrl ? ` · connectors at ${config.publicUrl}/mcp` : ''} · stop with Ctrl-C`;
        process.stdout.write(`${line}\n`);
      } catch (e) {
        if (e instanceof DaemonAlreadyRunning) {
          process.stderr.write(`coord: ${e.message}\n`);
          process.exit(EXIT.conflict);
        }
        process.stderr.write(`coord: could not start: ${startFailure(e, config.stateDir)}\n`);
        process.exit(EXIT.usage);
      }
    });
}
