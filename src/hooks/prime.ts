/**
 * `coord prime` (SPEC §10 session-start): what a model needs at the start of
 * a session and after compaction — who it is on which board, what it holds,
 * its unacknowledged messages (SPEC §12, recorded as shown `via: prime`), the
 * top of its inbox, who else is here, and the four rules — in at most 1,000
 * bytes.
 */

import { PATHS, withQuery } from '../api/paths.js';
import { pendingMessageLines } from '../client/pending-messages.js';
import type { HookDaemon } from './daemon.js';
import { DaemonDown, query } from './daemon.js';

export const PRIME_MAX_BYTES = 1000;

export const RULES = [
  'Rules: 1) claim_task before working on a task (one agent wins; if you lose, pick another).',
  '2) heartbeat before the lease ends.',
  '3) submit_result when done, or release_task to give it back.',
  '4) Files you edit are locked for you; lock_conflict means another agent holds one: edit something else.',
].join(' ');

interface Agents {
  agents: { name: string; active: boolean; claims: string[]; locks: string[] }[];
}

export async function primeText(agent: string, board: string, daemon: () => HookDaemon): Promise<string> {
  const head = `coord: you are ${agent} on board ${board} (tools: mcp coord).`;
  let body: string[];
  try {
    const d = daemon();
    // Before the inbox, which would record the same messages as shown `via: inbox`.
    const mail = await primeMessages(d, agent, board);
    const [inbox, agents] = await Promise.all([
      d.text(withQuery(PATHS.inbox, query({ agent, board, format: 'text' }))),
      d.get<Agents>(withQuery(PATHS.agents, query({ board }))),
    ]);
    const me = agents.body.agents?.find((a) => a.name === agent);
    const holds = me && me.locks.length > 0 ? [`You hold locks on: ${me.locks.slice(0, 8).join(', ')}`] : [];
    const others = (agents.body.agents ?? [])
      .filter((a) => a.active && a.name !== agent)
      .slice(0, 6)
      .map((a) => `${a.name}${a.claims.length ? ` (${a.claims.length} claimed)` : ''}`);
    body = [...holds, ...withMessages(inbox, mail), ...(others.length ? [`Also here: ${others.join(', ')}`] : [])];
  } catch (e) {
    if (!(e instanceof DaemonDown)) throw e;
    body = [`(${e.message}; the coord MCP server starts one when you first use a tool)`];
  }
  return fit([head, ...body], RULES);
}

/** Every unacknowledged message, unread first (the inbox's ten at most); none when the daemon cannot say. */
async function primeMessages(d: HookDaemon, agent: string, board: string): Promise<string[]> {
  try {
    return (await pendingMessageLines(d, { agent, board, via: 'prime', all: true, limit: 10 })).lines;
  } catch (e) {
    if (e instanceof DaemonDown) throw e;
    return []; // a daemon without messages (older) still primes
  }
}

/**
 * The inbox text with prime's message lines in place of its own (the same messages, by then already
 * recorded as shown by prime): its header first, then the messages, then claims and tasks.
 */
function withMessages(inbox: string, mail: string[]): string[] {
  const [header = '', ...rest] = inbox.trimEnd().split('\n');
  const ids = new Set(mail.map((l) => l.split(' ', 2)[1]));
  const others = rest.filter((l) => !(l.startsWith('msg ') && ids.has(l.split(' ', 2)[1])));
  return [header, ...mail, ...others];
}

/** Lines that fit in the budget with the rules kept: inbox lines are dropped from the end first. */
function fit(lines: string[], tail: string): string {
  const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
  const kept: string[] = [];
  let used = bytes(tail) + 1;
  for (const line of lines) {
    const cut = bytes(line) > 200 ? `${line.slice(0, 196)}…` : line;
    if (used + bytes(cut) + 1 > PRIME_MAX_BYTES) break;
    kept.push(cut);
    used += bytes(cut) + 1;
  }
  return [...kept, tail].join('\n');
}
