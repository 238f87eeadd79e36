/** Turns measured samples into result rows, checks targets, and renders the terminal table and markdown. */
import type { MachineInfo } from './machine.js';
import { median, sig } from './stats.js';
import type { Scenario, Target } from './types.js';

export interface ScenarioResult {
  name: string;
  metric: string;
  unit: string;
  better: 'higher' | 'lower';
  coord: number | null;
  floor: number | null;
  peers: Record<string, number | null>;
  ratio_to_floor: number | null;
  target: Target;
  met: boolean;
  note?: string;
  /** Medians of side figures (p99, write_tx, ...) per contender. */
  extra?: Record<string, Record<string, number>>;
  /** Every round's value per contender, in the order measured. */
  samples: Record<string, number[]>;
  seconds: number;
}

export interface Report {
  machine: MachineInfo;
  mode: 'quick' | 'full';
  rounds: number;
  seconds: number;
  scenarios: ScenarioResult[];
}

/** Medians of a contender's samples and extras. */
export function summarize(
  values: number[],
  extras: Record<string, number>[],
): { value: number | null; extra: Record<string, number> } {
  if (values.length === 0) return { value: null, extra: {} };
  const keys = new Set(extras.flatMap((e) => Object.keys(e)));
  const extra: Record<string, number> = {};
  for (const k of keys)
    extra[k] = sig(median(extras.map((e) => e[k]).filter((x): x is number => typeof x === 'number')));
  return { value: sig(median(values)), extra };
}

/** Whether `coord` meets `t`, and if not, why it could not be judged (undefined when judged). */
export function checkTarget(
  t: Target,
  coord: number | null,
  floor: number | null,
  peers: Record<string, number | null>,
  coordExtra: Record<string, number>,
): { met: boolean; why?: string } {
  if (coord === null) return { met: false, why: 'no coord figure' };
  let met: boolean;
  let why: string | undefined;
  switch (t.kind) {
    case 'abs_max':
      met = coord <= t.value;
      break;
    case 'ratio_to_floor_min':
    case 'ratio_to_floor_max':
      if (floor === null || floor === 0) return { met: false, why: 'no floor figure' };
      met = t.kind === 'ratio_to_floor_min' ? coord / floor >= t.value : coord / floor <= t.value;
      break;
    case 'ratio_to_peer_min': {
      const names = t.best_of ?? (t.peer ? [t.peer] : []);
      const figures = names.map((n) => peers[n]).filter((x): x is number => typeof x === 'number' && x > 0);
      const p = figures.length ? Math.max(...figures) : undefined;
      if (p === undefined) return { met: false, why: `no figure for peer ${names.join(' / ')}` };
      met = coord / p >= t.value;
      break;
    }
    case 'ratio_to_peer_max': {
      const p = t.peer ? peers[t.peer] : undefined;
      if (typeof p !== 'number' || p <= 0) return { met: false, why: `no figure for peer ${t.peer}` };
      met = coord / p <= t.value;
      break;
    }
  }
  for (const [k, max] of Object.entries(t.extra_max ?? {})) {
    const v = coordExtra[k];
    if (v === undefined) {
      met = false;
      why ??= `coord reported no ${k}`;
    } else if (v > max) met = false;
  }
  for (const sub of t.and ?? []) {
    const r = checkTarget(sub, coord, floor, peers, coordExtra);
    met &&= r.met;
    why ??= r.why;
  }
  return why ? { met, why } : { met };
}

export function describeTarget(t: Target, unit: string): string {
  let s: string;
  switch (t.kind) {
    case 'abs_max':
      s = unit === '×' ? `≤ ${t.value}×` : `≤ ${t.value} ${unit}`;
      break;
    case 'ratio_to_floor_min':
      s = `≥ ${t.value}× floor`;
      break;
    case 'ratio_to_floor_max':
      s = `≤ ${t.value}× floor`;
      break;
    case 'ratio_to_peer_min':
      s = t.best_of ? `≥ ${t.value}× the best of ${t.best_of.join(' / ')}` : `≥ ${t.value}× ${t.peer}`;
      break;
    case 'ratio_to_peer_max':
      s = `≤ ${t.value}× ${t.peer}`;
      break;
  }
  for (const [k, v] of Object.entries(t.extra_max ?? {})) s += `, ${k} ≤ ${v}`;
  for (const sub of t.and ?? []) s += ` and ${describeTarget(sub, unit)}`;
  return s;
}

const fmt = (x: number | null | undefined): string => {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  if (Math.abs(x) >= 1000) return Math.round(x).toLocaleString('en-US');
  return String(sig(x, 3));
};

function peersCell(r: ScenarioResult): string {
  const e = Object.entries(r.peers);
  return e.length === 0 ? '—' : e.map(([k, v]) => `${k}: ${fmt(v)}`).join('; ');
}

function metCell(r: ScenarioResult): string {
  if (r.coord === null) return 'no (skipped)';
  return r.met ? 'yes' : 'NO';
}

const HEAD = ['scenario', 'metric', 'coord', 'floor', 'peers', 'coord/floor', 'target', 'met'];

function rowCells(r: ScenarioResult): string[] {
  return [
    r.name,
    r.metric === r.unit ? r.metric : `${r.metric} (${r.unit})`,
    fmt(r.coord),
    fmt(r.floor),
    peersCell(r),
    r.ratio_to_floor === null ? '—' : `${sig(r.ratio_to_floor, 3)}×`,
    describeTarget(r.target, r.unit),
    metCell(r),
  ];
}

export const SHARED_CORES_NOTE = (m: MachineInfo): string =>
  `The load generator (autocannon / the latency client) runs in its own process on the same machine and shares its ${m.cpus} cores with the server under test; HTTP figures are therefore lower than on a dedicated client/server pair, for coord and floor alike.`;

export function terminalTable(rep: Report): string {
  const rows = [HEAD, ...rep.scenarios.map(rowCells)];
  const widths = HEAD.map((_, i) => Math.min(i === 0 ? 48 : 40, Math.max(...rows.map((r) => (r[i] ?? '').length))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (c.length > (widths[i] ?? 0) ? `${c.slice(0, (widths[i] ?? 1) - 1)}…` : c.padEnd(widths[i] ?? 0)))
      .join(' │ ');
  const sep = widths.map((w) => '─'.repeat(w)).join('─┼─');
  const out = [line(HEAD), sep, ...rows.slice(1).map(line)];
  const notes = rep.scenarios.filter((r) => r.note).map((r) => `  • ${r.name}: ${r.note}`);
  return [
    ...out,
    '',
    `ratio = coord / floor (higher is better for throughput rows, lower for latency/memory rows). Medians of ${rep.rounds} alternating rounds.`,
    SHARED_CORES_NOTE(rep.machine),
    '',
    'notes:',
    ...notes,
  ].join('\n');
}

const md = (s: string): string => s.replace(/\|/g, '\\|');

export function markdown(rep: Report): string {
  const m = rep.machine;
  const lines = [
    '# coord bench — latest results',
    '',
    `Mode: **${rep.mode}**, ${rep.rounds} alternating rounds per scenario, medians reported; run took ${Math.round(rep.seconds)} s.`,
    '',
    `| ${HEAD.join(' | ')} |`,
    `|${HEAD.map(() => '---').join('|')}|`,
    ...rep.scenarios.map((r) => `| ${rowCells(r).map(md).join(' | ')} |`),
    '',
    '`coord/floor` = coord ÷ floor. For throughput rows (claims/s, req/s, jobs/s) higher is better; for latency, time and memory rows lower is better. `met` is judged against the target column; a row whose coord contender did not run is `met: false` and says why below.',
    '',
    `> ${SHARED_CORES_NOTE(m)}`,
    '',
    '## Notes',
    '',
    ...rep.scenarios.map((r) => {
      const extras = Object.entries(r.extra ?? {})
        .map(
          ([who, e]) =>
            `${who}: ${Object.entries(e)
              .map(([k, v]) => `${k} ${fmt(v)}`)
              .join(', ')}`,
        )
        .join('; ');
      return `- **${md(r.name)}** — ${md(r.note ?? '')}${extras ? ` (medians of side figures — ${md(extras)})` : ''}`;
    }),
    '',
    '## Machine',
    '',
    `- cpus: ${m.cpus} × ${m.cpu_model}`,
    `- memory: ${m.mem_gb} GB`,
    `- node: ${m.node}`,
    `- platform: ${m.platform}`,
    `- date: ${m.date}`,
    `- 1-minute load average at start: ${m.load_avg_1m} (the machine is shared)`,
    '',
  ];
  return lines.join('\n');
}

/** Builds the result row of a scenario from its measured samples. */
export function resultRow(
  s: Scenario,
  samples: Record<string, number[]>,
  extras: Record<string, Record<string, number>[]>,
  skipped: Record<string, string>,
  seconds: number,
  peerNames: string[],
): ScenarioResult {
  const sum = (who: string) => summarize(samples[who] ?? [], extras[who] ?? []);
  const coord = sum('coord');
  const floor = sum('floor');
  const peers: Record<string, number | null> = {};
  const extra: Record<string, Record<string, number>> = {};
  for (const [who, e] of [
    ['coord', coord.extra],
    ['floor', floor.extra],
  ] as const)
    if (Object.keys(e).length) extra[who] = e;
  for (const p of peerNames) {
    const r = sum(p);
    peers[p] = r.value;
    if (Object.keys(r.extra).length) extra[p] = r.extra;
  }
  const ratio = coord.value !== null && floor.value ? sig(coord.value / floor.value, 4) : null;
  const check = checkTarget(s.target, coord.value, floor.value, peers, coord.extra);
  const notes: string[] = [];
  if (skipped.coord) notes.push(`skipped: ${skipped.coord}`);
  for (const [who, why] of Object.entries(skipped)) if (who !== 'coord') notes.push(`${who} not run: ${why}`);
  if (coord.value !== null && check.why) notes.push(`target not judged: ${check.why}`);
  if (s.note) notes.push(s.note);
  return {
    name: s.name,
    metric: s.metric,
    unit: s.unit,
    better: s.better,
    coord: coord.value,
    floor: floor.value,
    peers,
    ratio_to_floor: ratio,
    target: s.target,
    met: check.met,
    ...(notes.length ? { note: notes.join('; ') } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
    samples: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.map((x) => sig(x))])),
    seconds: Math.round(seconds * 10) / 10,
  };
}
