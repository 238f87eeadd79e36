/**
 * What a client's event stream says, applied to its running try (SPEC §18 "Supervised", "Usage limits are not
 * failures", "Budgets"): its session, its state, its turns, a usage limit that pauses it, its usage.
 */
import type { StreamSignal } from '../clients/profile.js';
import { type AgentState, limitDecision } from '../core/runs/supervision.js';
import type { Live } from './options.js';

/** Refused calls kept per try: enough to name what to allow. */
const MAX_REFUSED = 10;
export const PERMISSION_HINT = "allow it with --permission-mode, or in the client's own settings: docs/run.md";

export interface SignalTarget {
  pauseAfterS: number;
  graceMs: number;
  setState(l: Live, state: AgentState): void;
  log(line: string): void;
}

export function applySignal(t: SignalTarget, l: Live, s: StreamSignal): void {
  switch (s.kind) {
    case 'session':
      l.session = s.id;
      return;
    case 'state':
      t.setState(l, s.state);
      return;
    case 'turn':
      l.turns += 1;
      if (l.run.state === 'starting') t.setState(l, 'working');
      return;
    case 'retry':
      if (!pauseForLimit(t, l, s)) t.setState(l, 'waiting');
      return;
    case 'refused':
      // Headless, a refusal has no one to ask: the person learns it here and in the note an unsubmitted try leaves.
      if (l.refused.includes(s.tool) || l.refused.length >= MAX_REFUSED) return;
      l.refused.push(s.tool);
      t.log(`#${l.run.task_id} ${l.run.agent}: its permission mode refused ${s.tool} (${PERMISSION_HINT})`);
      return;
    case 'result':
      addResult(l, s);
      t.setState(l, 'idle');
      return;
  }
}

/** A 429 with a wait of at least --pause-after: paused until the reset, the process stopped, the lease held. */
function pauseForLimit(t: SignalTarget, l: Live, s: Extract<StreamSignal, { kind: 'retry' }>): boolean {
  if (s.status !== 429 || s.delayMs === null) return false;
  const d = limitDecision(s.delayMs, t.pauseAfterS, Date.now());
  if (!d.pause || l.endedBy !== null) return false;
  l.endedBy = 'pause';
  l.pausedUntil = d.until;
  l.run.paused_until = new Date(d.until).toISOString();
  t.setState(l, 'paused');
  t.log(`#${l.run.task_id} ${l.run.agent}: usage limit, paused until ${l.run.paused_until}`);
  void l.proc?.stop(t.graceMs);
  return true;
}

/** The client's final result: its usage added to the try's (a resumed session reports again). */
function addResult(l: Live, s: Extract<StreamSignal, { kind: 'result' }>): void {
  const wall = l.proc ? (Date.now() - l.proc.startedAt) / 1000 : 0;
  const before = l.usage;
  l.usage = {
    input_tokens: (before?.input_tokens ?? 0) + (s.input_tokens ?? 0),
    output_tokens: (before?.output_tokens ?? 0) + (s.output_tokens ?? 0),
    ...(s.cost_usd === null && before?.cost_usd === undefined
      ? {}
      : { cost_usd: (before?.cost_usd ?? 0) + (s.cost_usd ?? 0) }),
    wall_s: Math.round(((before?.wall_s ?? 0) + wall) * 10) / 10,
  };
  l.run.usage = l.usage;
  l.resultText = s.text;
}
