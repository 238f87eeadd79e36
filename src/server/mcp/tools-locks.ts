/** The MCP tools of what agents share in a repository (SPEC §14): file locks, who works here, pending changes, ports. */
import { z } from 'zod';
import { invoke } from '../../core/invoke.js';
import { operations as op } from '../../core/operations.js';
import { AgentsInput, LeaseS, LockFilesInput, UnlockInput } from '../../core/schemas.js';
import { changesText } from '../../core/worktrees/changes-text.js';
import { toRepoPaths } from './paths.js';
import * as say from './result-text.js';
import { READ, str, type Tool, treeOf, WRITE, WRITE_IDEMPOTENT } from './tool.js';

export const lockTools: Tool[] = [
  {
    name: 'lock_files',
    description:
      'Reserve files (or a directory, with a trailing /) before editing them so other agents keep off: all or none; a conflict names each holder. The lock ends with unlock_files, its lease, or this session.',
    input: LockFilesInput.omit({ agent: true, board: true, resources: true, worktree: true }).extend({
      files: LockFilesInput.shape.resources,
    }),
    annotations: WRITE,
    core: {
      description: 'Lock files (dir/ for a folder) before editing them; a conflict names the holder.',
      args: { files: 'Repository paths.' },
      lean: true,
    },
    async run(args, { ctx, session }) {
      const { files, ...rest } = args;
      const resources = toRepoPaths(session.root, files);
      const out = await invoke(op.lockFiles, ctx, {
        ...rest,
        resources,
        agent: session.agent,
        board: session.board,
        ...treeOf(session),
      });
      return { text: say.lockedText(out, ctx.clock.now()), data: out };
    },
  },
  {
    name: 'unlock_files',
    description:
      'Release a lock you took with lock_files, by its lock_id. Releasing twice is fine. Only your own: ending another agent’s lock, or a change hold, is a person’s act (forbidden here).',
    input: UnlockInput.pick({ lock_id: true }),
    annotations: WRITE_IDEMPOTENT,
    core: { description: 'Release a lock_files lock.', args: { lock_id: 'Its lock_id.' } },
    async run(args, { ctx, session }) {
      // SPEC §14: never forced from a session, and only the session's own agent's lock (core refuses others).
      const out = await invoke(op.unlockFiles, { ...ctx, acting_agent: session.agent }, { lock_id: args.lock_id });
      return { text: `released lock ${str(args.lock_id)}`, data: out };
    },
  },
  {
    name: 'who',
    description: 'The agents active on this board now and what each holds — who else works in this repository.',
    input: AgentsInput.omit({ board: true }),
    annotations: READ,
    core: { description: 'The agents on this board now and what each holds.', args: {}, lean: true },
    async run(_args, { ctx, session }) {
      const out = await invoke(op.listAgents, ctx, { board: session.board });
      return { text: say.whoText(out.agents, session.agent, session.board, ctx.clock.now(), out.total), data: out };
    },
  },
  {
    name: 'changes',
    description:
      'What each work tree of this repository would bring into the integration target (its commits, staged, unstaged and untracked files), who works in each, and the paths pending in two or more work trees — edit those only after talking to their agents (a path another work tree holds is refused until it is merged).',
    input: z.object({}),
    annotations: READ,
    core: { description: "Each work tree's pending paths and the paths pending in two or more.", args: {}, lean: true },
    async run(_args, { ctx, session }) {
      const out = await invoke(op.listChanges, ctx, { board: session.board, ...treeOf(session) });
      return { text: changesText(out, session.root), data: out };
    },
  },
  {
    name: 'reserve',
    description:
      'Reserve a resource of the machine other work trees share, before using it: kind "port" locks the lowest free port of the range (no lock holds it, nothing listens on it) and answers its number — start your dev server on it. The lock ends with unlock_files, its lease, or this session.',
    input: z.object({
      kind: z.enum(['port']).describe('What to reserve: "port".'),
      range: z.string().optional().describe('Ports to choose from, e.g. "3000-3999" (default).'),
      lease_s: LeaseS.optional(),
    }),
    annotations: WRITE,
    async run(args, { ctx, session }) {
      const { kind: _kind, ...rest } = args;
      const out = await invoke(op.reservePort, ctx, { ...rest, agent: session.agent, board: session.board });
      return {
        text: `reserved port ${out.port} (lock_id ${out.lock_id}, until ${say.at(out.lease_until, ctx.clock.now())}) — use it; unlock_files when done`,
        data: out,
      };
    },
  },
];
