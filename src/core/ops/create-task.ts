import { describeBlocked } from '../board/blockers.js';
import { unwrap } from '../board/outcomes.js';
import { DEFAULT_BOARD, DEFAULT_TTL_S } from '../model.js';
import { defineOperation } from '../operation.js';
import { CreateTaskOutput } from '../output-schemas.js';
import { CreateTaskInput } from '../schemas.js';
import { canonicalJson, sha256Hex } from '../shared/canonical-json.js';

export const createTask = defineOperation({
  name: 'create_task',
  summary: 'Post a task to a board.',
  input: CreateTaskInput,
  output: CreateTaskOutput,
  async run(ctx, input) {
    const fields = {
      board: input.board ?? DEFAULT_BOARD,
      kind: input.kind ?? 'task',
      title: input.title,
      body: input.body ?? '',
      priority: input.priority ?? 0,
      labels: input.labels ?? [],
      for: input.for ?? null,
      ttl_s: input.ttl_s ?? DEFAULT_TTL_S,
      // SPEC §11; left out of the payload hash when absent, so older keys keep their hash.
      blocked_by: input.blocked_by?.length ? [...new Set(input.blocked_by)] : undefined,
      parent: input.parent,
    };
    ctx.presence.touch(input.agent, fields.board, ctx.clock.now());
    const outcome = await ctx.store.createTask({
      ...fields,
      blocked_by: fields.blocked_by ?? [],
      parent: fields.parent ?? null,
      created_by: input.agent,
      ttl_ms: fields.ttl_s * 1000,
      idempotency_key: input.idempotency_key ?? null,
      // The key names one intent: the payload is every create field but who sent it.
      payload_hash: sha256Hex(canonicalJson(fields)),
    });
    const out = unwrap(outcome, '');
    await describeBlocked(ctx.store, [out.task]);
    return out;
  },
});
