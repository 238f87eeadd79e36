/**
 * SPEC §11: a plan in one request. Refs name tasks of the plan; any other name
 * in blocked_by or parent is an existing task's id. The plan is checked here
 * (unique refs, no cycle among its tasks) and handed to the store in
 * dependency order, which writes it in one transaction or not at all.
 */

import { describeBlocked } from '../board/blockers.js';
import { topoOrder } from '../board/dependency-graph.js';
import { unwrap } from '../board/outcomes.js';
import { PostPlanInput, PostPlanOutput } from '../board/plan-schemas.js';
import { CoordError } from '../errors.js';
import { DEFAULT_BOARD, DEFAULT_TTL_S } from '../model.js';
import { defineOperation } from '../operation.js';
import type { PlanLink, PlanTaskCommand } from '../ports.js';
import { cycleText, firstOf } from '../shared/bounded.js';
import { canonicalJson, sha256Hex } from '../shared/canonical-json.js';

const invalid = (path: string, message: string) =>
  new CoordError('invalid_request', `invalid plan: ${path}: ${message}`, { issues: [{ path, message }] });

export const postPlan = defineOperation({
  name: 'post_plan',
  summary:
    'Post a whole plan in one call: up to 200 tasks with refs, each blocked_by refs of the plan (or ids of existing tasks), created together or not at all.',
  input: PostPlanInput,
  output: PostPlanOutput,
  async run(ctx, input) {
    const board = input.board ?? DEFAULT_BOARD;
    const refs = new Map<string, number>();
    input.tasks.forEach((t, i) => {
      if (refs.has(t.ref)) throw invalid(`tasks.${i}.ref`, `"${t.ref}" is already the ref of tasks.${refs.get(t.ref)}`);
      refs.set(t.ref, i);
    });
    const link = (name: string): PlanLink => (refs.has(name) ? { ref: name } : { id: name });
    const tasks: PlanTaskCommand[] = input.tasks.map((t, i) => {
      for (const name of [...(t.blocked_by ?? []), ...(t.parent ? [t.parent] : [])]) {
        if (!refs.has(name) && !/^[A-Za-z0-9_-]{1,12}$/.test(name)) {
          throw invalid(`tasks.${i}`, `"${name}" is neither a ref of this plan nor a task id`);
        }
      }
      return {
        ref: t.ref,
        kind: t.kind ?? 'task',
        title: t.title,
        body: t.body ?? '',
        priority: t.priority ?? 0,
        labels: t.labels ?? [],
        for: t.for ?? null,
        created_by: input.agent,
        board,
        ttl_ms: (t.ttl_s ?? DEFAULT_TTL_S) * 1000,
        blocked_by: [...new Set(t.blocked_by ?? [])].map(link),
        parent: t.parent ? link(t.parent) : null,
      };
    });
    // Parents come first too, so a child can name a parent of the plan by its new id.
    const needs = (ref: string): string[] => {
      const t = tasks[refs.get(ref)!]!;
      return [...t.blocked_by, ...(t.parent ? [t.parent] : [])].flatMap((l) => ('ref' in l ? [l.ref] : []));
    };
    const sorted = topoOrder([...refs.keys()], needs);
    if ('cycle' in sorted) {
      throw new CoordError(
        'dependency_cycle',
        `the plan has a cycle: ${cycleText(sorted.cycle)} waits for itself — drop one of its edges`,
        { cycle: firstOf(sorted.cycle), cycle_length: sorted.cycle.length },
      );
    }
    ctx.presence.touch(input.agent, board, ctx.clock.now());
    const outcome = await ctx.store.createPlan({
      board,
      agent: input.agent,
      idempotency_key: input.idempotency_key ?? null,
      // The key names one intent: the payload is the board and the tasks as given.
      payload_hash: sha256Hex(canonicalJson({ board, tasks: input.tasks })),
      tasks: sorted.order.map((ref) => tasks[refs.get(ref)!]!),
    });
    if (!outcome.ok && outcome.reason === 'not_found' && outcome.id !== undefined) {
      // A name in blocked_by or parent that is no ref of this plan was read as a task id, and there is none.
      throw new CoordError(
        'not_found',
        `${outcome.id} is neither a ref of this plan (${[...refs.keys()].join(', ')}) nor a task id on board ${board} — check its spelling, or the id with coord ls`,
        { task_id: outcome.id },
      );
    }
    const out = unwrap(outcome, '');
    await describeBlocked(ctx.store, Object.values(out.tasks));
    return out;
  },
});
