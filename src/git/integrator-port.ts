/**
 * What an integrator (integrator.ts) is given and what it answers: the board it reaches, its options (the
 * flags of `coord integrate` and `serve --integrate`), and each task's result.
 */
import type { z } from 'zod';
import type { QueuedIntegration } from '../core/integration/integration.js';
import type {
  RecordIntegrationInput,
  RecordWindowInput,
  TakeSlotOutput,
} from '../core/integration/integration-schemas.js';
import type { MergeOutcome } from './integrate-merge.js';

export type RecordInput = z.input<typeof RecordIntegrationInput>;

/** How an integrator reaches the board: the operations of core/ops/integration.ts, called in process or over HTTP. */
export interface IntegratorBoard {
  takeSlot(input: {
    board: string;
    holder: string;
    slot_id: string;
    lease_s: number;
  }): Promise<z.output<typeof TakeSlotOutput>>;
  releaseSlot(input: { board: string; slot_id: string }): Promise<unknown>;
  queue(board: string): Promise<QueuedIntegration[]>;
  record(input: RecordInput): Promise<{ followup_id: string | null }>;
  /** SPEC §15: a window's tasks are being checked together (event integration.window, for the views). */
  window(input: z.input<typeof RecordWindowInput>): Promise<{ recorded: boolean }>;
}

export interface IntegratorOptions {
  board: string;
  /** The repository to merge in; null: each task's own work tree (from its change record). */
  repo: string | null;
  target: string;
  /**
   * The board's target as it is now (`coord target BRANCH`), asked at every turn: a change takes effect at
   * the next merge (SPEC §15). Without it, `target` throughout.
   */
  currentTarget?: (() => Promise<string>) | undefined;
  stateDir: string;
  /** `--check CMD` and its time limit. */
  check?: { command: string; timeoutMs: number } | undefined;
  /** `--window N`: how many tasks are merged and checked at once (default 1, one at a time). */
  window?: number | undefined;
  /** `--check-retries K`: a failing check runs again up to K times; passing on a retry is `flaky`. */
  checkRetries?: number | undefined;
  /** `--jobs J`: how many checks of a window run at once (default: the window). */
  jobs?: number | undefined;
  /** `--lanes` (with its `--scope` globs): tasks changing no common path are checked at the same time. */
  lanes?: { scopes: string[] } | undefined;
  /** With lanes: at most this many checks at once across all lanes (`--jobs` as given); absent, no cap. */
  maxChecks?: number | null | undefined;
  /** `--review`: a ready merge waits for `coord approve`. */
  review?: boolean;
  /** `--push REMOTE`: the target is REMOTE's branch, fetched and advanced by push (integrate-remote.ts). */
  push?: string | undefined;
  /** Named to a second integrator that finds the slot taken. */
  holder: string;
  leaseMs?: number;
  /** Hears that a checked-out target left behind by an interrupted integrator was brought up to date. */
  onRepair?: ((r: { worktree: string; from: string; to: string }) => void) | undefined;
  /** Hears each result, for the CLI's lines and the daemon's log. */
  onResult?: (task: QueuedIntegration, result: TurnResult) => void;
}

export type TurnResult = (MergeOutcome | { state: 'ready'; commit: string }) & {
  followup_id?: string | null;
  /** The same `blocked` as already recorded: nothing was recorded again. */
  repeated?: boolean;
};
