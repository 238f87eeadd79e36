/**
 * The program for one named command: main.ts builds it when argv names a command listed here, so `coord
 * inbox` loads the inbox command's modules and not the other nineteen (issue 26: each command loads what it
 * uses). Anything else — no command, --help, a typo — gets the whole program (program.ts), which lists and
 * suggests every command. A command added to program.ts is added here too (test/cli/cli.test.ts checks).
 */
import { Command } from 'commander';
import { VERSION } from '../core/shared/version.js';
import { EXIT } from './exit-codes.js';

type Register = (program: Command) => void;

/** Command name → the module that registers it (some register several: fenced, lock, messages). */
export const COMMAND_MODULES: Record<string, () => Promise<Register>> = {
  post: async () => (await import('./commands/post.js')).registerPost,
  ls: async () => (await import('./commands/ls.js')).registerLs,
  show: async () => (await import('./commands/show.js')).registerShow,
  claim: async () => (await import('./commands/claim.js')).registerClaim,
  heartbeat: async () => (await import('./commands/fenced.js')).registerFenced,
  release: async () => (await import('./commands/fenced.js')).registerFenced,
  submit: async () => (await import('./commands/fenced.js')).registerFenced,
  cancel: async () => (await import('./commands/cancel.js')).registerCancel,
  inbox: async () => (await import('./commands/inbox.js')).registerInbox,
  lock: async () => (await import('./commands/lock.js')).registerLock,
  renew: async () => (await import('./commands/lock.js')).registerLock,
  unlock: async () => (await import('./commands/lock.js')).registerLock,
  locks: async () => (await import('./commands/lock.js')).registerLock,
  events: async () => (await import('./commands/events.js')).registerEvents,
  who: async () => (await import('./commands/who.js')).registerWho,
  open: async () => (await import('./commands/open.js')).registerOpen,
  setup: async () => (await import('./commands/setup.js')).registerSetup,
  guard: async () => (await import('./commands/guard.js')).registerGuard,
  deps: async () => (await import('./commands/deps.js')).registerDeps,
  plan: async () => (await import('./commands/plan.js')).registerPlan,
  tree: async () => (await import('./commands/tree.js')).registerTree,
  note: async () => (await import('./commands/messages.js')).registerMessages,
  send: async () => (await import('./commands/messages.js')).registerMessages,
  ack: async () => (await import('./commands/messages.js')).registerMessages,
  messages: async () => (await import('./commands/messages.js')).registerMessages,
  top: async () => (await import('./commands/top.js')).registerTop,
  worktrees: async () => (await import('./commands/changes.js')).registerChanges,
  changes: async () => (await import('./commands/changes.js')).registerChanges,
  target: async () => (await import('./commands/changes.js')).registerChanges,
  reserve: async () => (await import('./commands/reserve.js')).registerReserve,
  integrate: async () => (await import('./commands/integrate.js')).registerIntegrate,
  approve: async () => (await import('./commands/integrate.js')).registerIntegrate,
  connect: async () => (await import('./commands/connectors.js')).registerConnectors,
  connectors: async () => (await import('./commands/connectors.js')).registerConnectors,
  run: async () => (await import('./commands/run.js')).registerRun,
  attention: async () => (await import('./commands/attention.js')).registerAttention,
  status: async () => (await import('./commands/status.js')).registerStatus,
  stop: async () => (await import('./commands/status.js')).registerStop,
};

/** The program with only `command` registered, or undefined when `command` is not one listed here. */
export async function oneCommandProgram(command: string | undefined): Promise<Command | undefined> {
  const load = command === undefined ? undefined : COMMAND_MODULES[command];
  if (!load) return undefined;
  const program = new Command('coord')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride((err) => {
      // Usage errors exit 1 (SPEC §7); --help and --version exit 0.
      process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage);
    });
  (await load())(program);
  return program;
}
