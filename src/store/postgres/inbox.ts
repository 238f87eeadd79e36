/** PostgreSQL's inbox: the written-once look (shared/inbox.ts), one round trip per statement, in one snapshot. */
import type { InboxQuery, InboxView } from '../../core/ports.js';
import { INBOX_SQL, inbox as inboxView } from '../shared/inbox.js';
import type { Queryable } from './database.js';
import { runAsync } from './runner.js';

export const inbox = (db: Queryable, now: number, q: InboxQuery): Promise<InboxView> =>
  runAsync(inboxView(INBOX_SQL, now, q), db);
