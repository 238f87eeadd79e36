/** Options every command shares, resolved once per invocation: flags ← environment ← defaults. */
import { userInfo } from 'node:os';
import { type Command, Option } from 'commander';
import { connect, type DaemonClient } from '../client/daemon-client.js';
import { resolveStateDir } from '../state-dir/state-dir.js';
import { resolveAgent, resolveBoard } from '../state-dir/who.js';
import { fail } from './output.js';

export interface CommonFlags {
  state?: string;
  agent?: string;
  board?: string;
  json?: boolean;
}

export function withCommon(cmd: Command, opts: { agent?: boolean; board?: boolean } = {}): Command {
  cmd.addOption(new Option('--state <dir>', 'state directory (default: $COORD_STATE or ~/.coord)'));
  if (opts.agent !== false)
    cmd.addOption(new Option('--agent <name>', 'your agent name (default: $COORD_AGENT or <user>@cli)'));
  if (opts.board !== false) {
    cmd.addOption(
      new Option('--board <name>', 'board (default: $COORD_BOARD, else this git repository, else "default")'),
    );
  }
  cmd.addOption(new Option('--json', 'print JSON instead of text'));
  return cmd;
}

export interface Invocation {
  client: DaemonClient;
  agent: string;
  board: string;
  stateDir: string;
}

export function resolveInvocation(flags: CommonFlags): Invocation {
  const env = process.env;
  const user = (() => {
    try {
      return userInfo().username.replace(/[^A-Za-z0-9._-]/g, '') || 'user';
    } catch {
      return 'user';
    }
  })();
  const stateDir = resolveStateDir(flags.state, env);
  return {
    stateDir,
    agent: resolveAgent({ flag: flags.agent, env, fallback: `${user}@cli` }),
    board: resolveBoard(flags.board, env, process.cwd()),
    client: connect(stateDir),
  };
}

/** Runs a command body, turning any failure into the message and exit code of SPEC §7. */
export function action<A extends unknown[]>(body: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    // commander calls actions with (...positionals, options, command).
    const flags = (args[args.length - 2] ?? {}) as CommonFlags;
    try {
      await body(...args);
    } catch (e) {
      fail(flags, e);
    }
  };
}
