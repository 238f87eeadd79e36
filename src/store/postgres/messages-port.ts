/** Notes and messages (SPEC §12) of the PostgreSQL store: its port (core/messages/message-ports.ts) over notes.ts and messages.ts. */
import type { NotesAndMessages } from '../../core/messages/message-ports.js';
import {
  ackMessage,
  anyOpen,
  deliver,
  deliveryWrites,
  getMessage,
  listMessages,
  sendMessage,
  unreadCounts,
} from './messages.js';
import { addNote, taskNotes } from './notes.js';
import { guarded } from './pg-errors.js';
import type { PostgresCore } from './store-core.js';

export const messagesPort = (s: PostgresCore): NotesAndMessages => ({
  addNote: (cmd) => s.write((tx) => addNote(tx, cmd)),
  taskNotes: (taskId, limit) => guarded(() => taskNotes(s.pool, taskId, limit)),
  sendMessage: (cmd) => s.write((tx) => sendMessage(tx, cmd)),
  listMessages: (q) => guarded(() => listMessages(s.pool, q)),
  deliverMessages: (cmd) =>
    guarded(async () => {
      if (!(await anyOpen(s.pool, cmd.agent, cmd.board))) return { messages: [], unread: 0 };
      // Look first (read-only): a poll with nothing new to record never opens a write transaction.
      if (!(await deliveryWrites(s.pool, cmd))) return deliver(s.pool, cmd, null);
      return s.write((tx) => deliver(tx.db, cmd, tx));
    }),
  ackMessage: (cmd) => s.write((tx) => ackMessage(tx, cmd)),
  getMessage: (id, agent) => guarded(() => getMessage(s.pool, id, agent)),
  unreadCounts: (board) => guarded(() => unreadCounts(s.pool, board)),
});
