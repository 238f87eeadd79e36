/**
 * Where the work-trees pane's data comes from: GET /v1/changes for the board shown (or, on every board, the
 * first few boards seen), read when the pane opens and again after the events that change work trees —
 * never on a timer, and only while the pane is shown (git is not free).
 */
import type { DaemonClient } from '../../client/daemon-client.js';
import type { CoordEvent } from '../../core/model.js';
import { operations } from '../../core/operations.js';
import type { BoardChanges, TreesView } from './work-panes.js';

/** Commits, claims and locks come in bursts: git is asked once they settle. */
const REFRESH_AFTER_EVENT_MS = 1500;
const MAX_BOARDS = 8;

/** Why a board shows no work trees, in words (the daemon's own message for anything else). */
function why(board: string, e: unknown): string {
  const code = (e as { code?: string }).code;
  if (code === 'not_found')
    return `board ${board}: no repository known yet — it is learnt when an agent works there, or from coord changes run inside it`;
  if (code === 'git_failed') return `board ${board}: this daemon cannot run git`;
  return `board ${board}: ${(e as Error).message ?? e}`;
}

export class TreesFeed {
  view: TreesView = { boards: [], notes: [], loading: false };
  private timer: NodeJS.Timeout | undefined;
  private reading = 0;

  constructor(
    private readonly client: DaemonClient,
    private readonly changed: () => void,
  ) {}

  /** Reads every board's changes now; `boards` are the boards to read. */
  async refresh(boards: string[]): Promise<void> {
    const turn = ++this.reading;
    this.view = { ...this.view, loading: true };
    const answers = await Promise.all(
      boards.slice(0, MAX_BOARDS).map((board) =>
        this.client.call(operations.listChanges, { board }).then(
          (out): BoardChanges | string => ({ board, ...out }),
          (e: unknown) => why(board, e),
        ),
      ),
    );
    // A later read started meanwhile: its answer is the one to show.
    if (turn !== this.reading) return;
    this.view = {
      boards: answers.filter((a): a is BoardChanges => typeof a !== 'string'),
      notes: answers.filter((a): a is string => typeof a === 'string'),
      loading: false,
    };
    this.changed();
  }

  /** Events arrived while the pane is shown: read again once they settle. */
  onEvents(events: CoordEvent[], boards: () => string[]): void {
    if (events.length === 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(boards()).catch(() => {}), REFRESH_AFTER_EVENT_MS);
  }
}
