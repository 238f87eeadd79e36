import { Command } from 'commander';
import { VERSION } from '../core/shared/version.js';
import { registerAttention } from './commands/attention.js';
import { registerCancel } from './commands/cancel.js';
import { registerChanges } from './commands/changes.js';
import { registerClaim } from './commands/claim.js';
import { registerConnectors } from './commands/connectors.js';
import { registerDeps } from './commands/deps.js';
import { registerEvents } from './commands/events.js';
import { registerFenced } from './commands/fenced.js';
import { registerGuard } from './commands/guard.js';
import { registerInbox } from './commands/inbox.js';
import { registerIntegrate } from './commands/integrate.js';
import { registerLock } from './commands/lock.js';
import { registerLs } from './commands/ls.js';
import { registerMcp } from './commands/mcp.js';
import { registerMessages } from './commands/messages.js';
import { registerOpen } from './commands/open.js';
import { registerPlan } from './commands/plan.js';
import { registerPost } from './commands/post.js';
import { registerReserve } from './commands/reserve.js';
import { registerRun } from './commands/run.js';
import { registerServe } from './commands/serve.js';
import { registerSetup } from './commands/setup.js';
import { registerShow } from './commands/show.js';
import { registerStatus, registerStop } from './commands/status.js';
import { registerTop } from './commands/top.js';
import { registerTree } from './commands/tree.js';
import { registerWho } from './commands/who.js';
import { EXIT } from './exit-codes.js';

export function buildProgram(): Command {
  const program = new Command('coord')
    .description('Coordination for AI coding agents: one task board, exactly-one claims, fenced leases, file locks.')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride((err) => {
      // Usage errors exit 1 (SPEC §7); --help and --version exit 0.
      process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage);
    });
  program.addHelpText(
    'after',
    `
Start here:
  coord serve                          run the daemon (state in $COORD_STATE or ~/.coord)
  coord post "fix the login bug"       put a task on the board
  coord claim                          take the next task; prints its claim_id (your fencing token)
  coord submit <id> --claim <c> --ok   finish it (retrying the same result is safe)
  coord setup claude --write           let Claude Code (or codex, gemini, cursor) use coord: MCP, hooks, instructions
  coord guard install                  refuse git commits that stage files other agents hold
  coord prime                          what an agent is told at session start (hooks: coord hook <event>)
  coord open                           the live dashboard

Exit codes: 0 ok, 1 usage error, 2 conflict (lost a claim, lock held), 3 daemon unreachable.`,
  );
  registerServe(program);
  registerPost(program);
  registerLs(program);
  registerShow(program);
  registerClaim(program);
  registerFenced(program);
  registerCancel(program);
  registerInbox(program);
  registerIntegrate(program);
  registerRun(program);
  registerLock(program);
  registerEvents(program);
  registerWho(program);
  registerChanges(program);
  registerReserve(program);
  registerConnectors(program);
  registerOpen(program);
  registerMcp(program);
  registerSetup(program);
  registerGuard(program);
  registerDeps(program);
  registerPlan(program);
  registerTree(program);
  registerMessages(program);
  registerTop(program);
  registerAttention(program);
  registerStatus(program);
  registerStop(program);
  return program;
}
