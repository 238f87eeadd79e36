/** The MCP tools of the board's tasks (SPEC §5): post, plan, claim, heartbeat, submit, release, cancel, show, artifacts. */
import { z } from 'zod';
import { PostPlanInput, SetDepsInput } from '../../core/board/plan-schemas.js';
import { CoordError } from '../../core/errors.js';
import { invoke } from '../../core/invoke.js';
import { inboxText } from '../../core/messages/inbox-text.js';
import { operations as op } from '../../core/operations.js';
import {
  CancelInput,
  ClaimNextInput,
  ClaimTaskInput,
  CreateTaskInput,
  HeartbeatInput,
  InboxInput,
  PutArtifactInput,
  ReleaseInput,
  ShowTaskInput,
  SubmitInput,
} from '../../core/schemas.js';
import type { ToolArgs } from './listed-schema.js';
import { toRepoPaths } from './paths.js';
import * as say from './result-text.js';
import { claimIdNote, READ, RememberedClaimId, str, type Tool, treeOf, WRITE, WRITE_IDEMPOTENT } from './tool.js';

export const taskTools: Tool[] = [
  {
    name: 'post_task',
    description:
      'Post a task to the shared board for any agent (or, with `for`, one agent) to claim. Use idempotency_key to make a retry safe. With blocked_by: [task ids], nobody can claim it until every one of those tasks completed; parent: a task id groups it under that task. To post several steps that depend on each other, use post_plan instead (one call).',
    input: CreateTaskInput.omit({ agent: true, board: true }),
    annotations: WRITE,
    core: {
      description: 'Post a task on this board for any agent (or, with for, one agent) to claim.',
      args: { title: 'One line: what needs doing.', body: 'Details.', for: 'Only this agent may claim it.' },
    },
    async run(args, { ctx, session }) {
      const out = await invoke(op.createTask, ctx, { ...args, agent: session.agent, board: session.board });
      return { text: say.postedText(out.task, out.created), data: out };
    },
  },
  {
    name: 'inbox',
    description:
      'Messages to you first (until you ack_message them), then your claims, then the tasks you may claim on this board, one short line each. Pass the cursor from the last inbox as `since` to see only what changed.',
    input: InboxInput.omit({ agent: true, board: true, format: true }),
    annotations: READ,
    core: { description: 'Your messages, your claims, then tasks you may claim: one line each.', args: {}, lean: true },
    async run(args, { ctx, session }) {
      const view = await invoke(op.inbox, ctx, { ...args, agent: session.agent, board: session.board });
      return { text: inboxText(view, ctx.clock.now(), since(args)), data: view };
    },
  },
  {
    name: 'claim_task',
    description:
      'Claim a task before working on it: exactly one agent wins. With task_id, claim that task; without it, claim the next ready one you may take (priority, then age; tasks still waiting for their blockers are skipped), waiting up to wait_s seconds for one to appear or become ready instead of polling. A lost race answers `claimed` naming the holder: pick another task. A task waiting for others answers `blocked` listing them.',
    input: ClaimTaskInput.omit({ agent: true, worktree: true })
      .partial({ task_id: true })
      .extend({
        wait_s: ClaimNextInput.shape.wait_s.describe(
          'Without task_id: wait up to this many seconds (0–60) for a task.',
        ),
      }),
    annotations: WRITE,
    core: {
      description:
        'Claim a task before working on it; one agent wins. No task_id: the next ready task. If you lose (claimed, naming the holder), pick another.',
      args: {
        task_id: 'Task id; leave out for the next one.',
        files: 'Paths to lock with the claim.',
        wait_s: 'No task_id: wait up to this many seconds for one.',
      },
      lean: true,
    },
    async run(args, { ctx, session }) {
      // SPEC §14: the session's work tree, learnt as §5 says; the model never types it.
      const input = { ...args, agent: session.agent, ...treeOf(session) };
      if (args.task_id === undefined) {
        if (args.files !== undefined) {
          throw new CoordError('invalid_request', 'files need a task_id: claim a task by id to lock files with it', {
            issues: [{ path: 'files', message: 'needs task_id' }],
          });
        }
        const grant = await invoke(op.claimNext, ctx, { ...input, board: session.board });
        if (!grant) return { text: say.nothingToClaim(session.board, Number(args.wait_s ?? 0)), data: { task: null } };
        session.remember(grant.task.id, grant.claim_id);
        return { text: say.claimText(grant, ctx.clock.now()), data: grant };
      }
      const files = args.files === undefined ? {} : { files: toRepoPaths(session.root, args.files) };
      const grant = await invoke(op.claimTask, ctx, { ...input, ...files });
      session.remember(grant.task.id, grant.claim_id);
      return { text: say.claimText(grant, ctx.clock.now()), data: grant };
    },
  },
  {
    name: 'post_plan',
    description:
      'Break work into steps in ONE call: up to 200 tasks, each with a short `ref` you choose, and `blocked_by: [refs]` naming the steps it needs first (or ids of existing tasks). All are created together or none (a cycle is refused as dependency_cycle). Agents claiming without a task_id then get each step only once all its blockers completed, so steps run in order and independent ones in parallel. Give parent: ref to group steps under an umbrella task. Use idempotency_key to make a retry return the same plan.',
    input: PostPlanInput.omit({ agent: true, board: true }),
    annotations: { destructiveHint: false, openWorldHint: false },
    async run(args, { ctx, session }) {
      const out = await invoke(op.postPlan, ctx, { ...args, agent: session.agent, board: session.board });
      return { text: say.planText(out.tasks, out.created), data: out };
    },
  },
  {
    name: 'set_deps',
    description:
      'Change what a queued task waits for: add ids of tasks it must wait for, remove ids it should no longer wait for. Use it to unblock a task whose blocker failed or was cancelled. A cycle is refused (dependency_cycle names it); nothing changes on a refusal.',
    input: SetDepsInput.omit({ agent: true }),
    annotations: { destructiveHint: false, openWorldHint: false },
    async run(args, { ctx, session }) {
      const out = await invoke(op.setDeps, ctx, { ...args, agent: session.agent });
      return { text: say.depsText(out.task), data: out };
    },
  },
  {
    name: 'heartbeat',
    description: `Extend your lease on a task you claimed; do it well before the lease ends or another agent may take the task.${claimIdNote}`,
    input: HeartbeatInput.omit({ worktree: true, head: true }).partial(RememberedClaimId),
    annotations: WRITE_IDEMPOTENT,
    core: {
      description: 'Extend your lease on a task you claimed, before it ends.',
      args: { task_id: 'Task id.' },
      lean: true,
    },
    async run(args, { ctx, session }) {
      const input = { ...args, claim_id: session.claimIdFor(str(args.task_id), args.claim_id) };
      const out = await invoke(op.heartbeat, ctx, input);
      return {
        text: say.heartbeatText(str(args.task_id).replace(/^#/, ''), out.lease_until, ctx.clock.now()),
        data: out,
      };
    },
  },
  {
    name: 'submit_result',
    description: `Finish a task you claimed as completed or failed, with any JSON result. Retrying the same result is safe; a different one is refused.${claimIdNote}`,
    // Listed as an object so clients that rewrite schemas keep a type (Codex turned an untyped `result` into `{}`);
    // core still accepts any JSON value.
    input: SubmitInput.omit({ worktree: true })
      .partial(RememberedClaimId)
      .extend({
        result: z
          .record(z.string(), z.unknown())
          .optional()
          .describe('What came of it, as a JSON object (e.g. {"summary": "…", "files": […]}).'),
      }),
    annotations: WRITE_IDEMPOTENT,
    core: {
      description: 'Finish a task you claimed: completed or failed, with a JSON result.',
      args: { task_id: 'Task id.', status: 'completed or failed.', result: 'e.g. {"summary": "…"}.' },
      lean: true,
    },
    async run(args, { ctx, session }) {
      const input = { ...args, claim_id: session.claimIdFor(str(args.task_id), args.claim_id), ...treeOf(session) };
      const out = await invoke(op.submitResult, ctx, input);
      return { text: say.submittedText(out.task, out.replayed), data: out };
    },
  },
  {
    name: 'release_task',
    description: `Give a task you claimed back to the queue without finishing it; with \`to\`, hand it to that agent only.${claimIdNote}`,
    input: ReleaseInput.partial(RememberedClaimId),
    annotations: WRITE,
    core: {
      description: 'Give a task you claimed back, or hand it to one agent (to), with a note for the next one.',
      args: { task_id: 'Task id.', to: 'Agent to hand it to.', note: 'What was done, what is left.' },
      lean: true,
    },
    async run(args, { ctx, session }) {
      const input = { ...args, claim_id: session.claimIdFor(str(args.task_id), args.claim_id) };
      const out = await invoke(op.releaseTask, ctx, input);
      return { text: say.releasedText(out.task, typeof args.to === 'string' ? args.to : undefined), data: out };
    },
  },
  {
    name: 'cancel_task',
    description: 'Cancel a queued or claimed task that should not be done; its holder is stopped at once.',
    input: CancelInput.omit({ agent: true }),
    annotations: WRITE,
    async run(args, { ctx, session }) {
      const out = await invoke(op.cancelTask, ctx, { ...args, agent: session.agent });
      return { text: say.cancelledText(out.task), data: out };
    },
  },
  {
    name: 'show_task',
    description: 'Show one task in full: state, holder and lease, body, result.',
    input: ShowTaskInput.omit({ agent: true }),
    annotations: READ,
    core: { description: 'One task in full: state, holder, body, notes, result.', args: { task_id: 'Task id.' } },
    async run(args, { ctx, session }) {
      const out = await invoke(op.showTask, ctx, { ...args, agent: session.agent });
      return { text: say.taskText(out.task, ctx.clock.now()), data: out };
    },
  },
  {
    name: 'upload_artifact',
    description: `Attach a file or text to a task you claimed, under an artifact_id you choose. Uploading the same id with the same content again is safe.${claimIdNote}`,
    input: PutArtifactInput.partial(RememberedClaimId).extend({
      content: z.string().describe('The artifact itself: text, or base64 when encoding is "base64".'),
      encoding: z.enum(['utf8', 'base64']).optional().describe('How content is encoded (default utf8).'),
    }),
    annotations: WRITE_IDEMPOTENT,
    async run(args, { ctx, session }) {
      const base64 = args.encoding === 'base64';
      if (typeof args.content !== 'string' || (base64 && !/^[A-Za-z0-9+/=\s_-]*$/.test(args.content))) {
        throw new CoordError('invalid_request', `content must be a ${base64 ? 'base64 ' : ''}string`, {
          issues: [{ path: 'content', message: 'expected a string' }],
        });
      }
      const out = await invoke(op.putArtifact, ctx, {
        ...args,
        claim_id: session.claimIdFor(str(args.task_id), args.claim_id),
        content_type: args.content_type ?? (base64 ? 'application/octet-stream' : 'text/plain; charset=utf-8'),
        bytes: new Uint8Array(Buffer.from(args.content, base64 ? 'base64' : 'utf8')),
      });
      return { text: say.artifactText(out.artifact, out.created), data: out };
    },
  },
];

const since = (args: ToolArgs): number | undefined =>
  args.since === undefined || args.since === null ? undefined : Number(args.since);
