/** Notes and messages (SPEC §12) of the SQLite store: its port (core/messages/message-ports.ts) over notes.ts and messages.ts. */
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
import type { SqliteCore } from './store-core.js';

export const messagesPort = (s: SqliteCore): NotesAndMessages => ({
  addNote: (cmd) => s.write((tx) => addNote(tx, cmd)),
  taskNotes: async (taskId, limit) => s.read(() => taskNotes(s.db, taskId, limit)),
  sendMessage: (cmd) => s.write((tx) => sendMessage(tx, cmd)),
  listMessages: async (q) => s.read(() => listMessages(s.db, q)),
  async deliverMessages(cmd) {
    if (!s.read(() => anyOpen(s.db, cmd.agent, cmd.board))) return { messages: [], unread: 0 };
    // Look first (read-only): a poll with nothing new to record never takes the write lock.
    if (!s.read(() => deliveryWrites(s.db, cmd))) return s.read(() => deliver(s.db, cmd, null));
    return s.write((tx) => deliver(tx.db, cmd, tx));
  },
  ackMessage: (cmd) => s.write((tx) => ackMessage(tx, cmd)),
  getMessage: async (id, agent) => s.read(() => getMessage(s.db, id, agent)),
  unreadCounts: async (board) => s.read(() => unreadCounts(s.db, board)),
});
