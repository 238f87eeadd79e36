/** The scenario registry, in report order. Add a scenario: write scenarios/<name>.ts, add one line here. */
import type { Scenario } from '../lib/types.js';
import changesWorktrees from './changes-worktrees.js';
import claimLatencyHttp from './claim-latency-http.js';
import claimNextBlocked from './claim-next-blocked.js';
import claimNextHttpDurable, { claimNextHttp } from './claim-next-http.js';
import claimNextHttpNaive from './claim-next-http-naive.js';
import claimNextInprocess from './claim-next-inprocess.js';
import { cliInbox, cliVersion } from './cli-start.js';
import daemonRss from './daemon-rss.js';
import decideEditHttp from './decide-edit-http.js';
import decideHoldsHttp from './decide-holds-http.js';
import editHookCost from './edit-hook-cost.js';
import emptyInboxHttp from './empty-inbox-http.js';
import inboxHistory from './inbox-history.js';
import integrateQueue from './integrate-queue.js';
import integrateWindow, { integrateWindowRed } from './integrate-window.js';
import jobCycleInprocess from './job-cycle-inprocess.js';
import mcpSpawn from './mcp-spawn.js';
import pgClaimComplete1 from './pg-claim-complete-1-daemon.js';
import pgClaimComplete2 from './pg-claim-complete-2-daemons.js';
import pgLink from './pg-link.js';
import planVsPosts from './plan-vs-posts.js';
import postToClaim from './post-to-claim.js';
import runPlan from './run-plan.js';
import supervisorStart from './supervisor-start.js';
import toolDefinitions from './tool-definitions.js';

export const SCENARIOS: { file: string; scenario: Scenario }[] = [
  { file: 'claim-next-inprocess', scenario: claimNextInprocess },
  { file: 'job-cycle-inprocess', scenario: jobCycleInprocess },
  { file: 'claim-next-http', scenario: claimNextHttpDurable },
  { file: 'claim-next-http-normal', scenario: claimNextHttp('normal') },
  { file: 'claim-next-http-naive', scenario: claimNextHttpNaive },
  { file: 'claim-latency-http', scenario: claimLatencyHttp },
  { file: 'empty-inbox-http', scenario: emptyInboxHttp },
  { file: 'inbox-history', scenario: inboxHistory },
  { file: 'post-to-claim', scenario: postToClaim },
  { file: 'mcp-spawn', scenario: mcpSpawn },
  { file: 'cli-version', scenario: cliVersion },
  { file: 'cli-inbox', scenario: cliInbox },
  { file: 'daemon-rss', scenario: daemonRss },
  { file: 'pg-claim-complete-1-daemon', scenario: pgClaimComplete1 },
  { file: 'pg-claim-complete-2-daemons', scenario: pgClaimComplete2 },
  { file: 'claim-next-blocked', scenario: claimNextBlocked },
  { file: 'plan-vs-posts', scenario: planVsPosts },
  { file: 'pg-link', scenario: pgLink },
  { file: 'decide-edit-http', scenario: decideEditHttp },
  { file: 'decide-holds-http', scenario: decideHoldsHttp },
  { file: 'edit-hook-cost', scenario: editHookCost },
  { file: 'changes-worktrees', scenario: changesWorktrees },
  { file: 'integrate-queue', scenario: integrateQueue },
  { file: 'integrate-window', scenario: integrateWindow },
  { file: 'integrate-window-red', scenario: integrateWindowRed },
  { file: 'tool-definitions', scenario: toolDefinitions },
  { file: 'supervisor-start', scenario: supervisorStart },
  { file: 'run-plan', scenario: runPlan },
];
