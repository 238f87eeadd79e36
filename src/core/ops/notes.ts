/** Notes on a task (SPEC §12): append-only, added by anyone who can see the task. */

import { unwrap } from '../board/outcomes.js';
import { CoordError } from '../errors.js';
import { AddNoteInput, AddNoteOutput } from '../messages/message-schemas.js';
import { defineOperation } from '../operation.js';
import { canonicalJson, sha256Hex } from '../shared/canonical-json.js';

/** How many notes a task's JSON carries (GET /v1/tasks/:id). */
export const TASK_NOTES = 20;

export const addNote = defineOperation({
  name: 'add_note',
  summary: 'Add a note to a task (what was done, what is left); anyone who can see the task may.',
  input: AddNoteInput,
  output: AddNoteOutput,
  async run(ctx, input) {
    const outcome = await ctx.store.addNote({
      task_id: input.task_id,
      agent: input.agent,
      text: input.text,
      idempotency_key: input.idempotency_key ?? null,
      payload_hash: sha256Hex(canonicalJson({ task_id: input.task_id, agent: input.agent, text: input.text })),
    });
    if (!outcome.ok && outcome.reason === 'idempotency_conflict') {
      throw new CoordError(
        'idempotency_conflict',
        'that idempotency_key already names another note — use a new key for a new note',
        { task_id: outcome.task_id },
      );
    }
    const value = unwrap(outcome, input.task_id);
    return value;
  },
});
