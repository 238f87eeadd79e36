/** The shapes of dependencies and plans (SPEC §11): set_deps and post_plan. */
import { z } from 'zod';
import { MAX_BLOCKERS, MAX_PLAN_TASKS } from '../model.js';
import { TaskSchema } from '../output-schemas.js';
import { AgentName, BoardName, CreateTaskInput, TaskId } from '../schemas.js';

export const SetDepsInput = z.object({
  task_id: TaskId,
  agent: AgentName,
  add: z.array(TaskId).max(MAX_BLOCKERS).optional().describe('Ids of tasks this one must wait for.'),
  remove: z.array(TaskId).max(MAX_BLOCKERS).optional().describe('Ids of blockers to drop.'),
});
export type SetDepsInput = z.infer<typeof SetDepsInput>;

export const PlanRef = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1–64 characters of A-Z a-z 0-9 . _ -')
  .describe('Your name for this task within the plan, e.g. "schema" or "step-2".');
const PlanLinkName = z
  .string()
  .regex(/^#?[A-Za-z0-9._-]{1,64}$/, 'must be a ref of this plan or a task id')
  .transform((s) => s.replace(/^#/, ''));

export const PlanTaskInput = z.object({
  ref: PlanRef,
  title: CreateTaskInput.shape.title,
  body: CreateTaskInput.shape.body,
  kind: CreateTaskInput.shape.kind,
  priority: CreateTaskInput.shape.priority,
  labels: CreateTaskInput.shape.labels,
  for: CreateTaskInput.shape.for,
  ttl_s: CreateTaskInput.shape.ttl_s,
  parent: PlanLinkName.optional().describe('The ref of a task of this plan, or the id of an existing task.'),
  blocked_by: z
    .array(PlanLinkName)
    .max(MAX_BLOCKERS)
    .optional()
    .describe('Refs of tasks of this plan (or ids of existing tasks) that must complete first.'),
});
export const PostPlanInput = z.object({
  agent: AgentName,
  board: BoardName.optional(),
  idempotency_key: CreateTaskInput.shape.idempotency_key.describe(
    'Names the plan: posting again with the same key and tasks returns the same tasks.',
  ),
  tasks: z
    .array(PlanTaskInput)
    .min(1)
    .max(MAX_PLAN_TASKS)
    .describe(`Up to ${MAX_PLAN_TASKS} tasks, created together with their edges, or none of them.`),
});
export type PostPlanInput = z.infer<typeof PostPlanInput>;
export const PostPlanOutput = z.object({
  tasks: z.record(z.string(), TaskSchema).describe('Each ref of the plan with the task created for it.'),
  created: z.boolean().describe('false when this key had already posted the same plan (nothing new was written).'),
});
