/**
 * The MCP tools of SPEC §5, derived from the operations table: each input
 * schema is the operation's own zod input without `agent` and `board` (they
 * come from the session), and each handler builds the op input and calls
 * `invoke` — parse, call, say it short. No tool adds behaviour of its own.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { CoordError } from '../../core/errors.js';
import { inboxText } from '../../core/inbox-text.js';
import { invoke } from '../../core/invoke.js';
import type { Ctx } from '../../core/operation.js';
import { operations as op } from '../../core/operations.js';
import {
  AgentsInput,
  CancelInput,
  ClaimNextInput,
  ClaimTaskInput,
  CreateTaskInput,
  HeartbeatInput,
  InboxInput,
  LockFilesInput,
  PutArtifactInput,
  ReleaseInput,
  ShowTaskInput,
  SubmitInput,
  UnlockInput,
} from '../../core/schemas.js';
import type { ToolArgs } from './listed-schema.js';
import { toRepoPaths } from './paths.js';
import * as say from './result-text.js';
import type { McpSession } from './session.js';
import { messageTools } from './tools-messages.js';

export interface ToolEnv {
  ctx: Ctx;
  session: McpSession;
}

export interface ToolOutput {
  /** What the model reads. */
  text: string;
  /** The operation's output, as `structuredContent` for programs. */
  data: object;
}

export interface Tool {
  name: string;
  description: string;
  input: z.ZodObject;
  annotations?: ToolAnnotations;
  run(args: ToolArgs, env: ToolEnv): Promise<ToolOutput>;
}

const RememberedClaimId = { claim_id: true } as const;
const claimIdNote = ' Leave claim_id out when this session made the claim: it is remembered.';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export const tools: Tool[] = [
  {
    name: 'post_task',
    description:
      'Post a task to the shared board for any agent (or, with `for`, one agent) to claim. Use idempotency_key to make a retry safe.',
    input: CreateTaskInput.omit({ agent: true, board: true }),
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
    annotations: { readOnlyHint: true },
    async run(args, { ctx, session }) {
      const view = await invoke(op.inbox, ctx, { ...args, agent: session.agent, board: session.board });
      return { text: inboxText(view, ctx.clock.now(), since(args)), data: view };
    },
  },
  {
    name: 'claim_task',
    description:
      'Claim a task before working on it: exactly one agent wins. With task_id, claim that task; without it, claim the next one you may take (priority, then age), waiting up to wait_s seconds for one to appear instead of polling. A lost race answers `claimed` naming the holder: pick another task.',
    input: ClaimTaskInput.omit({ agent: true })
      .partial({ task_id: true })
      .extend({
        wait_s: ClaimNextInput.shape.wait_s.describe(
          'Without task_id: wait up to this many seconds (0–60) for a task.',
        ),
      }),
    async run(args, { ctx, session }) {
      const input = { ...args, agent: session.agent };
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
    name: 'heartbeat',
    description: `Extend your lease on a task you claimed; do it well before the lease ends or another agent may take the task.${claimIdNote}`,
    input: HeartbeatInput.partial(RememberedClaimId),
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
    input: SubmitInput.partial(RememberedClaimId),
    async run(args, { ctx, session }) {
      const input = { ...args, claim_id: session.claimIdFor(str(args.task_id), args.claim_id) };
      const out = await invoke(op.submitResult, ctx, input);
      return { text: say.submittedText(out.task, out.replayed), data: out };
    },
  },
  {
    name: 'release_task',
    description: `Give a task you claimed back to the queue without finishing it; with \`to\`, hand it to that agent only.${claimIdNote}`,
    input: ReleaseInput.partial(RememberedClaimId),
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
    annotations: { destructiveHint: true },
    async run(args, { ctx, session }) {
      const out = await invoke(op.cancelTask, ctx, { ...args, agent: session.agent });
      return { text: say.cancelledText(out.task), data: out };
    },
  },
  {
    name: 'show_task',
    description: 'Show one task in full: state, holder and lease, body, result.',
    input: ShowTaskInput.omit({ agent: true }),
    annotations: { readOnlyHint: true },
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
  {
    name: 'lock_files',
    description:
      'Reserve files (or a directory, with a trailing /) before editing them so other agents keep off: all or none; a conflict names each holder. The lock ends with unlock_files, its lease, or this session.',
    input: LockFilesInput.omit({ agent: true, board: true, resources: true }).extend({
      files: LockFilesInput.shape.resources,
    }),
    async run(args, { ctx, session }) {
      const { files, ...rest } = args;
      const resources = toRepoPaths(session.root, files);
      const out = await invoke(op.lockFiles, ctx, { ...rest, resources, agent: session.agent, board: session.board });
      return { text: say.lockedText(out, ctx.clock.now()), data: out };
    },
  },
  {
    name: 'unlock_files',
    description: 'Release a lock you took with lock_files, by its lock_id. Releasing twice is fine.',
    input: UnlockInput,
    async run(args, { ctx }) {
      const out = await invoke(op.unlockFiles, ctx, args);
      return { text: `released lock ${str(args.lock_id)}`, data: out };
    },
  },
  {
    name: 'who',
    description: 'The agents active on this board now and what each holds — who else works in this repository.',
    input: AgentsInput.omit({ board: true }),
    annotations: { readOnlyHint: true },
    async run(_args, { ctx, session }) {
      const out = await invoke(op.listAgents, ctx, { board: session.board });
      return { text: say.whoText(out.agents, session.agent, session.board, ctx.clock.now()), data: out };
    },
  },
  ...messageTools,
];

const since = (args: ToolArgs): number | undefined =>
  args.since === undefined || args.since === null ? undefined : Number(args.since);
