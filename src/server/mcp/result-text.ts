/**
 * What a model reads back from each tool: short, ids first, then what to do
 * next. Programs read the operation's output in the result's `_meta` (mcp/errors.ts DATA_META). Times are UTC wall-clock
 * plus how long is left, because a model has no clock of its own.
 */

import type { z } from 'zod';
import { integrationLine } from '../../core/integration/integration.js';
import { shortDuration } from '../../core/messages/inbox-text.js';
import { noteLine } from '../../core/messages/message-text.js';
import type { AgentSeen, Artifact, Task } from '../../core/model.js';
import type { ClaimOutput } from '../../core/output-schemas.js';
import { changeLines } from '../../core/worktrees/change-text.js';

export const at = (iso: string | null, now: number): string =>
  iso ? `${iso.slice(11, 19)} UTC (in ${shortDuration(Date.parse(iso) - now)})` : '-';

const oneLine = (s: string, n = 80): string => {
  const t = s.replace(/\s+/g, ' ');
  return t.length <= n ? t : `${t.slice(0, n - 1)}…`;
};

export function postedText(task: Task, created: boolean): string {
  if (!created) return `#${task.id} was already posted with that idempotency_key (state ${task.state}) — nothing new`;
  const to = task.for ? `, only for ${task.for}` : '';
  const when = task.ready ? 'another agent can claim it now' : `claimable once ${waitingFor(task)} completed`;
  return `posted #${task.id} (${task.kind}, p${task.priority}${to}) on board ${task.board} — ${when}`;
}

export function claimText(g: z.infer<typeof ClaimOutput>, now: number): string {
  const files = g.lock ? `\nlocked with it: ${g.lock.resources.join(', ')}` : '';
  return [
    `${g.reclaimed ? 'already yours' : 'claimed'}: #${g.task.id} ${oneLine(g.task.title)}`,
    `claim_id ${g.claim_id} · fence ${g.fence} · lease until ${at(g.lease_until, now)}${files}`,
    // SPEC §14: the previous claim left work in its work tree — the model should start from it.
    ...(g.work_left ? [g.work_left] : []),
    'next: do the work, heartbeat before the lease ends, then submit_result (this session remembers the claim_id)',
  ].join('\n');
}

export const nothingToClaim = (board: string, waited: number): string =>
  `nothing to claim on board ${board}${waited > 0 ? ` after waiting ${waited}s` : ''} — call claim_task with wait_s to wait for work`;

export const heartbeatText = (taskId: string, leaseUntil: string, now: number): string =>
  `lease on #${taskId} extended until ${at(leaseUntil, now)}`;

export function submittedText(task: Task, replayed: boolean): string {
  const said = replayed
    ? `#${task.id} was already ${task.state} with this same result — nothing changed (a safe retry)`
    : task.change
      ? `#${task.id} is ${task.state} — result and change recorded; the files you changed stay held for other work trees until merged`
      : `#${task.id} is ${task.state} — result recorded; its claim and any files locked with it are released`;
  return [said, ...changeLines(task.change)].join('\n');
}

export const releasedText = (task: Task, to: string | undefined): string =>
  to ? `handed #${task.id} to ${to}: only that agent may claim it now` : `released #${task.id}: it is queued again`;

export const cancelledText = (task: Task): string => `#${task.id} is cancelled; any holder is fenced off`;

export function artifactText(a: Artifact, created: boolean): string {
  const what = `${a.id} on #${a.task_id} (${a.size} bytes, sha256 ${a.sha256.slice(0, 12)}…)`;
  return created ? `stored artifact ${what}` : `artifact ${what} was already stored with these bytes — nothing changed`;
}

export const lockedText = (l: { lock_id: string; resources: string[]; lease_until: string }, now: number): string =>
  `locked ${l.resources.join(', ')} until ${at(l.lease_until, now)} · lock_id ${l.lock_id} — unlock_files when done`;

const waitingFor = (t: Task): string => t.blocked.map((b) => `#${b.id} (${b.state})`).join(', ');

/** SPEC §11: each ref with its task id, ready ones first. */
export function planText(tasks: Record<string, Task>, created: boolean): string {
  const all = Object.entries(tasks);
  const ready = all.filter(([, t]) => t.ready);
  const head = created
    ? `posted a plan of ${all.length} tasks: ${ready.length} ready now, ${all.length - ready.length} waiting for others`
    : `this plan was already posted with that idempotency_key — nothing new`;
  const lines = all.map(
    ([ref, t]) =>
      `${ref} = #${t.id}${t.ready ? ' ready' : t.blocked.length ? ` after ${t.blocked.map((b) => `#${b.id}`).join(',')}` : ` ${t.state}`}`,
  );
  return [head, ...lines].join('\n');
}

export function depsText(t: Task): string {
  if (t.blocked_by.length === 0) return `#${t.id} waits for nothing${t.ready ? ' — it can be claimed now' : ''}`;
  if (t.ready)
    return `#${t.id} waits for ${t.blocked_by.map((id) => `#${id}`).join(', ')}, all completed — it can be claimed now`;
  return `#${t.id} is blocked by ${waitingFor(t)}`;
}

export function taskText(t: Task, now: number): string {
  const lines = [
    `#${t.id} [${t.state}] ${t.kind} p${t.priority} · by ${t.created_by}${t.for ? ` · only for ${t.for}` : ''} · attempts ${t.attempts}`,
    `title: ${t.title}`,
  ];
  if (t.claimed_by) lines.push(`held by ${t.claimed_by} until ${at(t.lease_until, now)}`);
  if (t.labels.length) lines.push(`labels: ${t.labels.join(', ')}`);
  if (t.blocked.length) lines.push(`blocked by: ${waitingFor(t)}`);
  else if (t.blocked_by.length)
    lines.push(`blockers (all completed): ${t.blocked_by.map((id) => `#${id}`).join(', ')}`);
  if (t.parent) lines.push(`parent: #${t.parent}`);
  if (t.children) lines.push(`children: ${t.children.completed}/${t.children.total} completed`);
  if (t.body) lines.push(`body:\n${t.body}`);
  if (t.result_status) lines.push(`result (${t.result_status}): ${JSON.stringify(t.result)}`);
  lines.push(...changeLines(t.change));
  const merged = t.integration ? integrationLine(t.id, t.integration) : null;
  if (merged) lines.push(`integration: ${merged}`);
  lines.push(...notesLines(t, now));
  return lines.join('\n');
}

/** The task's last notes, with how many there are in all. */
function notesLines(t: Task, now: number): string[] {
  if (!t.notes?.length) return [];
  const more = (t.notes_count ?? 0) - t.notes.length;
  return [
    `notes (${t.notes_count}${more > 0 ? `, last ${t.notes.length}` : ''}):`,
    ...t.notes.map((n) => noteLine(n, now)),
  ];
}

export function whoText(agents: AgentSeen[], me: string, board: string, now: number, total?: number): string {
  const active = agents.filter((a) => a.active);
  if (active.length === 0) return `no agents active on board ${board}`;
  const more =
    total && total > agents.length ? `\n… ${total} agents seen in all; the first ${agents.length} shown` : '';
  return `${active
    .map((a) => {
      const holds = [
        a.claims.length ? `claims ${a.claims.map((c) => `#${c}`).join(',')}` : '',
        a.locks.length
          ? `locks ${a.locks.join(',')}${a.locks_total ? ` (+${a.locks_total - a.locks.length})` : ''}`
          : '',
      ].filter(Boolean);
      const seen = shortDuration(now - Date.parse(a.last_seen));
      const where = a.worktree ? ` · in ${a.worktree}${a.branch ? ` [${a.branch}]` : ''}` : '';
      return `${a.name}${a.name === me ? ' (you)' : ''}${where} · ${holds.join(' · ') || 'holds nothing'} · seen ${seen} ago`;
    })
    .join('\n')}${more}`;
}
