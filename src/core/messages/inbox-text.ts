/**
 * The inbox as a model reads it (SPEC §6): every byte lands in a context
 * window. Empty ≤ 64 bytes; one line per task ≤ 140 bytes for an 80-char title.
 */

import type { Task } from '../model.js';
import type { InboxOutput } from '../output-schemas.js';
import { messageLine } from './message-text.js';

const cut = (s: string, n: number): string => {
  const chars = [...s.replace(/\s+/g, ' ')];
  return chars.length <= n ? chars.join('') : `${chars.slice(0, n - 1).join('')}…`;
};

export const LINE_BUDGET = 140;

/** Appends the title, cut at 80 characters and then, for non-ASCII titles, until the line fits the byte budget. */
function withTitle(head: string, title: string): string {
  let line = `${head}${cut(title, 80)}`;
  for (let n = 79; Buffer.byteLength(line) > LINE_BUDGET && n > 0; n--) line = `${head}${cut(title, n)}`;
  return line;
}

/** 3m, 5h, 2d — the coarsest unit that keeps two digits. */
export function shortDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60 ? `${s % 60}s` : ''}`;
  if (s < 86_400)
    return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60) ? `${Math.floor((s % 3600) / 60)}m` : ''}`;
  return `${Math.floor(s / 86_400)}d`;
}

const age = (t: Task, now: number) =>
  shortDuration(now - Date.parse(t.created_at)).replace(/(\d+[a-z])\d+[a-z]$/, '$1');

export function taskLine(t: Task, agent: string, now: number): string {
  // A task handed over to you (release with `to`) is from whoever handed it; the next line says it is a handoff,
  // with the note that came with it.
  if (t.handed_by && t.for === agent) {
    const from = cut(t.handed_by, 16);
    const line = withTitle(`#${t.id} ${cut(t.kind, 10)} p${t.priority} ${age(t, now)} ${from}>you: `, t.title);
    const note = t.handoff_note ? withTitle(`  handoff from ${from}: `, t.handoff_note) : `  handoff from ${from}`;
    return `${line}\n${note}`;
  }
  const who = t.for === agent ? `${cut(t.created_by, 16)}>you` : cut(t.created_by, 16);
  return withTitle(`#${t.id} ${cut(t.kind, 10)} p${t.priority} ${age(t, now)} ${who}: `, t.title);
}

export function claimLine(t: Task, now: number): string {
  const left = t.lease_until ? shortDuration(Date.parse(t.lease_until) - now) : '?';
  return withTitle(`* #${t.id} ${cut(t.kind, 10)} p${t.priority} yours, lease ${left}: `, t.title);
}

/** `2 messages, 1 claimed by you, 3 to claim · 1 blocked · cursor 42`. */
function headline(view: InboxOutput, blocked: string): string {
  const messages = view.messages ?? [];
  const parts = [];
  if (messages.length) parts.push(`${view.unread ?? messages.length} message${messages.length === 1 ? '' : 's'}`);
  if (view.claims.length) parts.push(`${view.claims.length} claimed by you`);
  parts.push(`${view.tasks.length + view.more} to claim${blocked}`);
  return `${parts.join(', ')} · cursor ${view.cursor}`;
}

export function inboxText(view: InboxOutput, now: number, since: number | undefined): string {
  const lines: string[] = [];
  const messages = view.messages ?? [];
  const n = view.claims.length + view.tasks.length + view.gone.length + messages.length;
  // SPEC §11: blocked tasks are counted, never listed (they cannot be claimed yet).
  const blocked = view.blocked > 0 ? ` · ${view.blocked} blocked` : '';
  if (n === 0)
    return since === undefined
      ? `inbox empty${blocked} · cursor ${view.cursor}`
      : `no changes${blocked} · cursor ${view.cursor}`;
  lines.push(headline(view, blocked));
  // Unread messages first (SPEC §12): they stay listed until acknowledged (ack_message).
  for (const m of messages) lines.push(messageLine(m, now));
  const unlisted = (view.unread ?? 0) - messages.length;
  if (unlisted > 0) lines.push(`+${unlisted} more messages (coord messages)`);
  for (const c of view.claims) lines.push(claimLine(c.task, now));
  for (const t of view.tasks) lines.push(taskLine(t, view.agent, now));
  if (view.more > 0) lines.push(`+${view.more} more (coord ls)`);
  for (const g of view.gone) lines.push(`- #${g.id} ${g.state}${g.claimed_by ? ` by ${g.claimed_by}` : ''}`);
  return lines.join('\n');
}
