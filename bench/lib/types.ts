/**
 * The scenario registry's types. A scenario names one measured quantity and the
 * contenders that produce it; the runner (bench/run.ts) alternates them round by
 * round and reports medians.
 */

/** One measurement: a bare number, or a number with side figures (p99, write count, ...). */
export type Measurement = number | { value: number; extra?: Record<string, number> };

/** Produces ONE measurement per call. `round` counts from 0; runners may use it to vary seeds/paths. */
export type Runner = (round: number) => Promise<Measurement>;

export type TargetKind =
  | 'ratio_to_floor_min'
  | 'ratio_to_floor_max'
  | 'ratio_to_peer_min'
  | 'ratio_to_peer_max'
  | 'abs_max';

export interface Target {
  kind: TargetKind;
  value: number;
  /** For ratio_to_peer_min / ratio_to_peer_max: which peer. */
  peer?: string;
  /** For ratio_to_peer_min instead of `peer`: the best (highest) figure among these peers. */
  best_of?: string[];
  /** Further targets that must all hold as well (e.g. "≥ 50 % of the floor AND ≥ 10× pg-boss"). */
  and?: Target[];
  /** Side figures of coord's measurement that must stay at or below a bound, e.g. { write_tx: 0 }. */
  extra_max?: Record<string, number>;
}

export interface Scenario {
  name: string;
  /** What is measured, e.g. "claims/s" or "p50 latency". */
  metric: string;
  unit: string;
  /** 'higher' for throughput, 'lower' for latency/memory: only used to explain ratios in the report. */
  better: 'higher' | 'lower';
  target: Target;
  /** Text shown in the report next to the row (sizes, trial counts, caveats). */
  note?: string;
  contenders: {
    /** coord contender: plugged in by the scenario file once the coord piece has landed. */
    coord?: Runner;
    floor?: Runner;
    peers?: Record<string, Runner>;
  };
  /** Return a reason to skip the whole scenario (e.g. no PostgreSQL available), or null. */
  available?: () => Promise<string | null>;
  setup?: () => Promise<void>;
  teardown?: () => Promise<void>;
}

/** Thrown by a runner (or a child process) that cannot run here; reported as "skipped: reason". */
export class SkipError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'SkipError';
  }
}

export const defineScenario = (s: Scenario): Scenario => s;

export const measuredValue = (m: Measurement): number => (typeof m === 'number' ? m : m.value);
export const measuredExtra = (m: Measurement): Record<string, number> => (typeof m === 'number' ? {} : (m.extra ?? {}));
