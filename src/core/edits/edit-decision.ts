/**
 * SPEC §10 "One decision, one round trip": whether an agent may edit some
 * paths, decided from the live locks that overlap them — a pure function the
 * stores call inside their transaction, so the look and the lock can never be
 * told apart by a second agent. Also the one wording of a refusal that every
 * hook form shows the model. Imports nothing (the command hooks load it).
 */

/** Auto-locks live 10 min past the last edit (renewed by later edits). */
export const AUTO_LOCK_LEASE_S = 600;

/** A live lock (or, later, a change hold) that overlaps a key asked for. */
export interface Overlap {
  /** The key asked for. */
  resource: string;
  /** The held key it meets: the same key, a directory around it, or a key inside it. */
  held: string;
  lock_id: string;
  holder: string;
  /** Epoch ms: the lock's lease, or its claim's. */
  lease_until: number;
  task_id: string | null;
  /** A plain lock lives by its own lease (renewable); a claim's lock follows its claim. */
  plain: boolean;
  /** SPEC §14: the holder's work tree, and whether this is a change hold of it (never the caller's own tree). */
  worktree?: string | null;
  hold?: boolean;
}

export interface EditAsk {
  agent: string;
  resources: string[];
  lease_ms: number;
}

/** What the store must do: nothing, renew some of the agent's locks, and/or take one for the uncovered keys. */
export type EditPlan =
  | { decision: 'deny'; conflicts: Overlap[] }
  | { decision: 'allow'; renew: string[]; take: string[]; lease_until: number };

/** An own plain lock with less than half the auto-lock lease left is renewed by the next edit of its files. */
const renewBelow = (ask: EditAsk): number => ask.lease_ms / 2;

const covers = (held: string, key: string): boolean => held === key || (held.endsWith('/') && key.startsWith(held));

/**
 * Others' overlaps deny; the agent's own locks never block it (any of its sessions). Keys its locks cover
 * are kept (and renewed when half their lease is gone); the rest are taken in one new lock.
 */
export function planEdit(overlaps: Overlap[], ask: EditAsk, now: number): EditPlan {
  // A change hold of another work tree blocks even its own agent (SPEC §14): it is that work tree's, not the agent's.
  const others = overlaps.filter((o) => o.holder !== ask.agent || o.hold === true);
  if (others.length > 0) return { decision: 'deny', conflicts: others };
  const renew = new Set<string>();
  const take: string[] = [];
  const fresh = now + ask.lease_ms;
  let lease_until = Number.POSITIVE_INFINITY;
  for (const key of ask.resources) {
    const mine = overlaps.filter((o) => o.resource === key && !o.hold && covers(o.held, key));
    // The key is safe as long as its longest-lived own lock lasts; renew that one if it runs short.
    const best = mine.reduce<Overlap | undefined>((a, b) => (a && a.lease_until >= b.lease_until ? a : b), undefined);
    if (!best) take.push(key);
    else if (best.plain && best.lease_until - now < renewBelow(ask)) renew.add(best.lock_id);
    lease_until = Math.min(lease_until, best && !renew.has(best.lock_id) ? best.lease_until : fresh);
  }
  return { decision: 'allow', renew: [...renew], take, lease_until };
}

/** Nothing to write: the answer can come from a read-only look. */
export const isReadOnly = (plan: EditPlan): boolean =>
  plan.decision === 'deny' || (plan.renew.length === 0 && plan.take.length === 0);

/** `14:02:11 UTC (in 9m)`: a model has no clock of its own. */
export function leaseEnd(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const left = Math.max(0, Math.round((t - now) / 1000));
  const span =
    left >= 3600
      ? `${Math.floor(left / 3600)}h${Math.floor((left % 3600) / 60)}m`
      : left >= 60
        ? `${Math.floor(left / 60)}m`
        : `${left}s`;
  return `${new Date(t).toISOString().slice(11, 19)} UTC (in ${span})`;
}

export interface ConflictLine {
  resource: string;
  held: string;
  holder: string;
  lease_until: string;
  task_id?: string | null | undefined;
}

/** `lock_conflict: src/a.ts is held by codex#1a2b3c until 14:02:11 UTC (in 9m), task #k3x9 — …` */
export function conflictReason(conflicts: ConflictLine[], now = Date.now()): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const c of conflicts) {
    const line = `${c.resource} is held by ${c.holder}${c.held === c.resource ? '' : ` (as ${c.held})`} until ${leaseEnd(c.lease_until, now)}${c.task_id ? `, task #${c.task_id}` : ''}`;
    if (!seen.has(line)) parts.push(line);
    seen.add(line);
  }
  return `lock_conflict: ${parts.join('; ')} — edit something else, or ask that agent (coord who); do not work around the lock`;
}

/** The name of the MCP tool a client's own hook calls (Claude Code's `mcp_tool` hook type). */
export const DECIDE_EDIT_TOOL = 'decide_edit';

/** `coord_busy: coord did not answer in 28s — try the edit again` */
export const busyReason = (waitedS: number): string =>
  `coord_busy: coord did not answer in ${waitedS}s — try the edit again`;
