/**
 * SPEC §18 "One task, one agent, one work tree": before its agent starts, a task's work tree is made (or found,
 * for a retry), made runnable (`.worktreeinclude`, a reserved port, `--setup`), and the task and what it builds
 * on are read for the prompt.
 */
import type { Task } from '../core/model.js';
import type { SupervisorBoard } from './board.js';
import { coordEnv, type Live, type SupervisorOptions } from './options.js';
import { copyIncluded, runSetup, taskTree } from './worktree.js';

export type Prepared =
  | {
      ok: true;
      task: Task;
      blockers: Task[];
      /** Tells the claim its work tree (once the agent has been started: it need not wait for this). */
      tell(): void;
    }
  | { ok: false; lines: string[] };

/** The work tree, its files, its port and its setup; the task and what it builds on, for the prompt. */
export async function prepare(board: SupervisorBoard, o: SupervisorOptions, l: Live, claimed: Task): Promise<Prepared> {
  const { run } = l;
  try {
    // The work tree, the port, the task's text and what it builds on at once: none waits for another.
    const portTaken = board.reservePort({ agent: run.agent, board: o.board, lease_s: o.leaseS }).then((port) => {
      l.port = port.port;
      l.portLock = port.lock_id;
    });
    const read = board.showTask(run.task_id).then(async (task) => {
      const blockers = await Promise.all(task.blocked_by.map((id) => board.showTask(id).catch(() => null)));
      return { task, blockers: blockers.filter((b): b is Task => b !== null) };
    });
    const [tree, , { task, blockers }] = await Promise.all([
      taskTree(o.repo, o.target, run.branch, run.worktree),
      portTaken,
      read,
    ]);
    run.branch = tree.branch;
    // SPEC §18: the claim learns its work tree (it was made before the tree was) and the commit the tree was
    // made at — where its work begins, whatever the agent commits before this arrives. Sent once the agent
    // has started; awaited before the try ends (the lost-work note reads it).
    const tell = () => {
      l.told = board
        .heartbeat({
          task_id: run.task_id,
          claim_id: l.claimId,
          lease_s: o.leaseS,
          worktree: run.worktree,
          ...(tree.head ? { head: tree.head } : {}),
        })
        .catch((e) => o.log(`#${run.task_id} telling the claim its work tree: ${(e as Error).message}`));
    };
    const copied = await copyIncluded(o.repo, run.worktree);
    if (copied.length > 0) o.log(`#${run.task_id}: copied ${copied.length} file(s) named in .worktreeinclude`);
    if (o.setup) {
      const env = { ...o.env, ...coordEnv(l, o.board) };
      const s = await runSetup(o.setup, run.worktree, env, (o.setupTimeoutS ?? 600) * 1000);
      if (!s.ok) {
        tell();
        return { ok: false, lines: s.lines };
      }
    }
    return { ok: true, task: { ...claimed, ...task }, blockers, tell };
  } catch (e) {
    return { ok: false, lines: [(e as Error).message] };
  }
}
