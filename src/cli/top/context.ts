/** What the parts of `coord top` share: its options, widgets, the board's data, the screen's state, the feed. */
import type { DaemonClient } from '../../client/daemon-client.js';
import type { BoardState } from './board-state.js';
import type { LiveBoard } from './live-board.js';
import type { ScreenState } from './screen-state.js';
import type { TreesFeed } from './trees-feed.js';
import type { Widgets } from './widgets.js';

export interface TopOptions {
  client: DaemonClient;
  stateDir: string;
  /** The board to show first; '' = every board. */
  board: string;
  /** Who posts and cancels from here. */
  agent: string;
  color: boolean;
}

export interface Top {
  readonly opts: TopOptions;
  readonly w: Widgets;
  readonly state: BoardState;
  readonly ui: ScreenState;
  readonly feed: LiveBoard;
  /** The work-trees pane's data (read only while that pane is shown). */
  readonly trees: TreesFeed;
  /** The boards the work-trees pane reads: the one shown, or every board seen. */
  treeBoards(): string[];
  /** Draws the whole screen from the state (nothing once the terminal was given back). */
  draw(): void;
  /** A message in the footer for a few seconds. */
  say(text: string): void;
  sayError(e: unknown): void;
  /** The board a new task goes to: the one shown, else the one top started on, else `default`. */
  postBoard(): string;
}

export const errorText = (e: unknown): string =>
  `${(e as { code?: string }).code ?? 'error'}: ${(e as Error).message ?? e}`;
