/**
 * Real processes around the integration queue (SPEC §15): a repository with one branch per task (made in
 * one `git fast-import`), completed tasks queued through a daemon's HTTP API, and `coord integrate` runs.
 */
import { execFileSync, spawn } from 'node:child_process';
import { git, type TestRepo, testRepo } from '../git/repo.js';
import { COORD, childEnv, ROOT, type SpawnedDaemon } from '../support/daemon.js';

export interface QueuedTask {
  id: string;
  branch: string;
  head: string;
}

/** `n` branches `<prefix>-<i>` off main, each one commit adding its own file. */
export function branches(r: TestRepo, prefix: string, n: number): { branch: string; head: string }[] {
  const from = r.rev('main');
  let stream = '';
  for (let i = 0; i < n; i++) {
    const text = `${prefix} ${i}\n`;
    stream += `commit refs/heads/${prefix}-${i}\ncommitter t <t@example.com> 1700000000 +0000\ndata ${prefix.length + 10}\n${`work ${prefix} ${i}`.padEnd(prefix.length + 10)}\nfrom ${from}\nM 644 inline files/${prefix}-${i}.txt\ndata ${Buffer.byteLength(text)}\n${text}\n`;
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: r.main, input: stream });
  return Array.from({ length: n }, (_, i) => ({ branch: `${prefix}-${i}`, head: r.rev(`${prefix}-${i}`) }));
}

async function ok(res: Response): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Posts, claims, completes and queues one task per branch; answers them in completion order. */
export async function queueTasks(
  d: SpawnedDaemon,
  board: string,
  work: { branch: string; head: string }[],
): Promise<QueuedTask[]> {
  const out: QueuedTask[] = [];
  for (const w of work) {
    const { task } = (await ok(
      await d.fetch('/v1/tasks', { method: 'POST', json: { agent: 'planner', board, title: w.branch } }),
    )) as {
      task: { id: string };
    };
    const agent = `agent-${w.branch}`;
    const { claim_id } = (await ok(
      await d.fetch(`/v1/tasks/${task.id}/claim`, { method: 'POST', json: { agent } }),
    )) as {
      claim_id: string;
    };
    await ok(
      await d.fetch(`/v1/tasks/${task.id}/submit`, { method: 'POST', json: { agent, claim_id, status: 'completed' } }),
    );
    await ok(
      await d.fetch(`/v1/tasks/${task.id}/integration`, { method: 'POST', json: { head: w.head, branch: w.branch } }),
    );
    out.push({ id: task.id, ...w });
  }
  return out;
}

/** `coord integrate` against one daemon's state directory, as a real process. */
export function integrate(d: SpawnedDaemon, board: string, repo: string, args: string[] = []) {
  const [cmd, ...base] = COORD as [string, ...string[]];
  const child = spawn(
    cmd,
    [...base, 'integrate', '--state', d.stateDir, '--board', board, '--repo', repo, '--target', 'main', ...args],
    { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b) => {
    stdout += b;
  });
  child.stderr.on('data', (b) => {
    stderr += b;
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done, stdout: () => stdout };
}

/** What the target and the board say about each task: how often its head and its merge commit appear, its events. */
export async function exactlyOnce(d: SpawnedDaemon, r: TestRepo, tasks: QueuedTask[]) {
  const history = r.history('main');
  const subjects = git(r.main, 'log', '--format=%s', 'main').split('\n');
  const res = await d.fetch('/v1/events?format=json&limit=1000&since=0');
  const { events } = (await res.json()) as { events: { type: string; task_id: string | null }[] };
  return tasks.map((t) => ({
    id: t.id,
    head: history.filter((c) => c === t.head).length,
    merges: subjects.filter((s) => s.startsWith(`coord: integrate #${t.id} `)).length,
    integrated: events.filter((e) => e.type === 'task.integrated' && e.task_id === t.id).length,
  }));
}

export { testRepo };
