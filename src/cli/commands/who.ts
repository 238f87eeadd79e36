import type { Command } from 'commander';
import { parseInput } from '../../core/invoke.js';
import type { AgentSeen } from '../../core/model.js';
import { operations } from '../../core/operations.js';
import type { AgentRun } from '../../core/runs/supervision.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';

/** "12s ago", "5m ago", "3h ago", "2d ago". */
export function ago(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

export function agentTable(agents: AgentSeen[], now: number): string {
  if (agents.length === 0) return 'no agents seen on this board';
  const rows = [
    ['AGENT', 'STATUS', 'LAST SEEN', 'WORKTREE', 'CLAIMS', 'LOCKS'],
    ...agents.map((a) => [
      a.name,
      a.active ? 'active' : 'idle',
      ago(a.last_seen, now),
      a.worktree ? `${a.worktree.split('/').pop()}${a.branch ? ` [${a.branch}]` : ''}` : '-',
      a.claims.map((id) => `#${id}`).join(' ') || '-',
      a.locks.join(' ') || '-',
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

/** SPEC §18: the agent processes `coord run` started that are still running. */
export function runTable(runs: Omit<AgentRun, 'claim_id'>[], now: number): string {
  const live = runs.filter((r) => r.state !== 'exited');
  if (live.length === 0) return '';
  const rows = [
    ['RUNNING', 'CLIENT', 'PID', 'TASK', 'STATE', 'SINCE', 'WORKTREE', 'USAGE'],
    ...live.map((r) => [
      r.agent,
      r.client,
      String(r.pid ?? '-'),
      `#${r.task_id}`,
      r.state === 'paused' && r.paused_until ? `paused until ${r.paused_until}` : r.state,
      ago(r.since, now),
      `${r.worktree.split('/').pop()} [${r.branch}]`,
      r.usage ? `${r.usage.input_tokens + r.usage.output_tokens} tok` : '-',
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

export function registerWho(program: Command): void {
  withCommon(
    program
      .command('who')
      .description('Agents seen on the board lately: active or idle, last seen, the tasks and locks each holds'),
    { agent: false },
  ).action(
    action(async (flags: CommonFlags) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.listAgents, { board: inv.board });
      const res = await inv.client.call(operations.listAgents, input);
      const { runs } = await inv.client.call(operations.listRuns, { board: inv.board });
      const running = runTable(runs, Date.now());
      emit(
        flags,
        { ...res, runs },
        () =>
          (res.total
            ? `${agentTable(res.agents, Date.now())}\n… ${res.total} agents seen in all; the first ${res.agents.length} shown`
            : agentTable(res.agents, Date.now())) + (running ? `\n\n${running}` : ''),
      );
    }),
  );
}
