/**
 * Push without busy-polling (SPEC §5). The session watches the store's
 * events for its board and, when its agent's inbox changes, tells the client
 * the way that client listens:
 * - `notifications/resources/updated` for `coord://inbox` to subscribers;
 * - `notifications/claude/channel` to Claude Code, which drops resource
 *   notifications but shows channel events to the model. Only news the model
 *   should act on goes there: new work it may claim, and the end of its own claims.
 */
import { newsFor } from '../../core/events.js';
import type { CoordEvent } from '../../core/model.js';
import type { Store } from '../../core/ports.js';
import type { McpSession } from './session.js';

export const INBOX_URI = 'coord://inbox';
export const CHANNEL_METHOD = 'notifications/claude/channel';

export interface InboxPushTargets {
  /** The inbox changed (a subscriber should read coord://inbox again). */
  changed(): void;
  /** One line of news for the model. */
  news(content: string, meta: Record<string, string>): void;
}

export class InboxWatch {
  private stop: (() => void) | undefined;
  subscribed = false;
  channel = false;

  constructor(
    private readonly store: Store,
    private readonly session: McpSession,
    private readonly push: InboxPushTargets,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** Watch while anyone listens; idempotent. */
  update(): void {
    const wanted = this.subscribed || this.channel;
    if (wanted && !this.stop) {
      // Listeners run inside the store's commit path: never read or throw there.
      this.stop = this.store.subscribe((events) => {
        setImmediate(() => this.handle(events).catch(this.onError));
      });
    } else if (!wanted && this.stop) {
      this.close();
    }
  }

  close(): void {
    this.stop?.();
    this.stop = undefined;
  }

  private async handle(events: CoordEvent[]): Promise<void> {
    let changed = false;
    for (const e of events) {
      if (e.board !== this.session.board || e.task_id === null) continue;
      // Visible to this agent = in its inbox, or just left it (private tasks of others never are).
      const task = await this.store.getTask(e.task_id, this.session.agent);
      if (!task) continue;
      changed = true;
      const line = this.channel ? newsFor(e, task, this.session.agent) : null;
      if (line) this.push.news(line, { event: e.type, task_id: task.id, board: task.board });
    }
    if (changed && this.subscribed) this.push.changed();
  }
}

/** The catalogue's news line (core/events.ts), re-exported for the push tests. */
export { newsFor };
