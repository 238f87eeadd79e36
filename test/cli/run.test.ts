/**
 * `coord run`'s bad input (SPEC §18): each gets a clear error and loses nothing. A stand-in `claude` (a shell
 * script on PATH) shows the supervisor's own behaviour where the real client is not the point: a client that
 * crashes at start is retried after a backoff, then failed with its last lines; a failing --setup never starts it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from '../support/ctx.js';
import { COORD, childEnv, ROOT, runProcess, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { suiteDaemon } from '../support/suite-daemon.js';
import { waitFor } from '../support/wait-for.js';

const [NODE, ...BASE] = COORD as [string, ...string[]];

function repo(branch = 'main'): string {
  const dir = tempDir('coord-run-cli-');
  const git = (...a: string[]) => execFileSync('git', a, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', branch);
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 't');
  writeFileSync(join(dir, 'README.md'), '# x\n');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  return dir;
}

/** A folder holding a `claude` that prints a line and exits 1 at once (and records that it ran). */
/** `coord` run from a folder against the suite's daemon, and the same with `--json` parsed (exit 0 asserted). */
function cliOn(d: SpawnedDaemon) {
  const coordIn = (cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
    runProcess(NODE, [...BASE, ...args], { cwd, env: childEnv({ COORD_STATE: d.stateDir, ...env }) });
  const json = async (cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) => {
    const r = await coordIn(cwd, [...args, '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  return { coordIn, json };
}

function crashingClaude(): string {
  const bin = tempDir('coord-run-bin-');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'claude'), `#!/bin/sh\necho "ran" >> "${bin}/runs"\necho "boom: cannot start" >&2\nexit 1\n`);
  chmodSync(join(bin, 'claude'), 0o755);
  return bin;
}

describe('coord run: bad input', () => {
  const d = suiteDaemon();
  const { coordIn, json } = cliOn(d);

  test('an unknown client, one with no headless mode, and one not installed are refused, saying what to do', async () => {
    const dir = repo();
    const unknown = await coordIn(dir, ['run', '--agents', 'nosuch:1']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /unknown client "nosuch" in --agents: coord run can start .*claude/);
    assert.doesNotMatch(unknown.stderr, /cursor/, 'only clients with a headless mode are named');
    const nowhere = await coordIn(dir, ['run', '--agents', 'nosuch:1'], { PATH: '/nonexistent' });
    assert.match(nowhere.stderr, /claude \(not installed: npm install -g @anthropic-ai\/claude-code\)/);
    const cursor = await coordIn(dir, ['run', '--agents', 'cursor:1']);
    assert.equal(cursor.code, 1);
    assert.match(cursor.stderr, /Cursor has no headless mode coord run can start \(clients with one: .*claude.*\)/);
    const missing = await coordIn(dir, ['run', '--agents', 'claude:1'], { PATH: '/nonexistent' });
    assert.equal(missing.code, 1);
    assert.match(
      missing.stderr,
      /Claude Code \(claude\) is not installed or not on PATH: npm install -g @anthropic-ai\/claude-code/,
    );
    const spec = await coordIn(dir, ['run', '--agents', 'claude:0']);
    assert.equal(spec.code, 1);
    assert.match(spec.stderr, /--agents takes CLIENT:N pairs/);
  });

  test('a repository with no target branch is refused', async () => {
    const dir = repo('trunk');
    execFileSync('git', ['checkout', '-q', '--detach'], { cwd: dir });
    const bin = crashingClaude();
    const r = await coordIn(dir, ['run', '--agents', 'claude:1', '--once', '--board', 'no-target'], {
      PATH: `${bin}:${process.env.PATH}`,
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /has no target branch \(no main or master\): pass --target BRANCH/);
  });

  test('a client that crashes at start is retried once after its backoff, then its task fails with its last lines', async () => {
    const dir = repo();
    const board = 'crash';
    const bin = crashingClaude();
    const env = { PATH: `${bin}:${process.env.PATH}` };
    const task = (await json(dir, ['post', 'Never started', '--board', board])).task;
    const out = await json(dir, ['run', '--agents', 'claude:1', '--once', '--board', board, '--backoff', '0'], env);
    assert.deepEqual(
      out.runs.map((r: { submitted: boolean; exit_code: number }) => [r.submitted, r.exit_code]),
      [
        [false, 1],
        [false, 1],
      ],
    );
    const shown = (await json(dir, ['show', task.id])).task;
    assert.equal(shown.state, 'failed');
    const notes = shown.notes.map((n: { text: string }) => n.text).join('\n');
    assert.match(notes, /the task failed\. Its last lines:\nboom: cannot start/);
  });

  test("a failing --setup never starts the agent, and the task ends with the setup's last lines", async () => {
    const dir = repo();
    const board = 'setup';
    const bin = crashingClaude();
    const env = { PATH: `${bin}:${process.env.PATH}` };
    const task = (await json(dir, ['post', 'Needs setup', '--board', board])).task;
    const out = await json(
      dir,
      [
        'run',
        '--agents',
        'claude:1',
        '--once',
        '--board',
        board,
        '--retries',
        '0',
        '--setup',
        'echo "npm ci: lockfile broken"; exit 3',
      ],
      env,
    );
    assert.deepEqual(out.launched, [], 'the agent never started');
    const shown = (await json(dir, ['show', task.id])).task;
    assert.equal(shown.state, 'failed');
    assert.match(
      shown.notes.map((n: { text: string }) => n.text).join('\n'),
      /setup failed[\s\S]*npm ci: lockfile broken/,
    );
  });
});

/**
 * A scripted `claude`: it does its task the way an agent would — a file committed on its branch in its work tree,
 * then `coord submit` with the claim it was started holding — and the prompt's words pick a variation: `LINGERS`
 * stays 2 s after submitting (the integrator may merge meanwhile), `SCRATCHES` leaves an uncommitted file after
 * submitting, `WAITS` commits half its work and waits to be asked to stop (recording that it was asked),
 * `RETRIED` commits a first part on its first try and exits without submitting (its retry does the rest). Each
 * ends with Claude Code's final `result` line on stdout (the supervisor reads it as idle); `IDLES` then waits 1.5 s.
 */
function scriptedClaude(): string {
  const bin = tempDir('coord-run-agent-');
  const submit = [NODE, ...BASE, 'submit', '"$COORD_TASK"', '--claim', '"$claim"', '--ok']
    .map((a) => (a.startsWith('"') ? a : `'${a}'`))
    .join(' ');
  writeFileSync(
    join(bin, 'claude'),
    `#!/bin/sh
cd "$COORD_WORKTREE" || exit 9
case "$2" in *WAITS*)
  echo half > half.txt && git add half.txt && git commit -q -m "half done"
  trap 'echo asked > "${bin}/asked-$COORD_TASK"; exit 143' TERM
  sleep 300 & wait
  exit 1;;
esac
case "$2" in *RETRIED*) if [ ! -e "${bin}/tried-$COORD_TASK" ]; then
  touch "${bin}/tried-$COORD_TASK"
  echo first > first.txt && git add first.txt && git commit -q -m "first try"
  exit 1
fi;;
esac
echo "$COORD_TASK" > "t-$COORD_TASK.txt"
claim=$(echo "$COORD_CLAIM" | cut -d: -f2)
git add "t-$COORD_TASK.txt" && git commit -q -m "task $COORD_TASK" || exit 8
${submit} >> "${bin}/submits" 2>&1 || exit 7
case "$2" in *LINGERS*) sleep 2;; esac
case "$2" in *SCRATCHES*) echo notes > scratch.txt;; esac
echo '{"type":"result","subtype":"success","is_error":false,"result":"done","usage":{"input_tokens":1,"output_tokens":1}}'
case "$2" in *IDLES*) sleep 1.5;; esac
exit 0
`,
  );
  chmodSync(join(bin, 'claude'), 0o755);
  return bin;
}

describe('coord run: work trees and stopping, with scripted agents', () => {
  const d = suiteDaemon();
  const { coordIn, json } = cliOn(d);
  interface Shown {
    state: string;
    notes: { text: string }[];
    change: { base: string | null; merged_as?: string } | null;
  }
  const show = async (dir: string, id: string): Promise<Shown> => (await json(dir, ['show', id])).task;
  const postPlan = async (
    dir: string,
    board: string,
    tasks: { ref: string; title: string; blocked_by?: string[] }[],
  ) => {
    const file = join(tempDir('coord-run-plan-'), 'plan.json');
    writeFileSync(file, JSON.stringify({ tasks }));
    const out = await json(dir, ['plan', file, '--board', board]);
    const ids = new Map<string, string>();
    for (const t of Object.values(out.tasks) as { id: string; title: string }[]) ids.set(t.title, t.id);
    return (title: string) => ids.get(title) ?? assert.fail(`no task titled ${title}`);
  };
  const git = (cwd: string, ...a: string[]) =>
    execFileSync('git', a, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const isAncestor = (dir: string, a: string, b: string) => {
    try {
      execFileSync('git', ['merge-base', '--is-ancestor', a, b], { cwd: dir, stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };

  test("--integrate: a task's work tree starts from a tip holding its blockers' merges; a merged task's work tree is removed, one with work nobody merged is kept", async () => {
    const dir = repo();
    const board = 'trees';
    const id = await postPlan(dir, board, [
      { ref: 'a', title: 'Step a LINGERS' },
      { ref: 'b', title: 'Step b', blocked_by: ['a'] },
      { ref: 'c', title: 'Step c SCRATCHES' },
    ]);
    const env = { PATH: `${scriptedClaude()}:${process.env.PATH}` };
    const out = await json(
      dir,
      ['run', '--agents', 'claude:3', '--once', '--integrate', '--board', board, '--retries', '0'],
      env,
    );
    assert.equal(out.runs.length, 3, JSON.stringify(out.runs));
    const [a, b, c] = await Promise.all(['Step a LINGERS', 'Step b', 'Step c SCRATCHES'].map((t) => show(dir, id(t))));
    for (const t of [a, b, c]) assert.ok(t?.change?.merged_as, `merged: ${JSON.stringify(t?.change)}`);
    // b was made from main after a's merge: the base its change record names already holds a.
    assert.ok(b?.change?.base, JSON.stringify(b?.change));
    assert.ok(
      isAncestor(dir, a?.change?.merged_as ?? '', b?.change?.base ?? ''),
      `b's base ${b?.change?.base} holds a's merge ${a?.change?.merged_as}`,
    );
    const tree = (title: string) => join(`${dir}.worktrees`, id(title));
    assert.equal(existsSync(tree('Step a LINGERS')), false, "a merged task's work tree is removed");
    assert.equal(existsSync(tree('Step b')), false, "a merged task's work tree is removed");
    assert.equal(
      readFileSync(join(tree('Step c SCRATCHES'), 'scratch.txt'), 'utf8'),
      'notes\n',
      'work nobody merged is kept',
    );
    assert.match(git(dir, 'worktree', 'list'), new RegExp(id('Step c SCRATCHES')));
  });

  test("a retry in the task's work tree continues its change record: the first try's commits are recorded and merged with the second's", async () => {
    const dir = repo();
    const board = 'retry-record';
    const id = await postPlan(dir, board, [{ ref: 'r', title: 'Step RETRIED' }]);
    const env = { PATH: `${scriptedClaude()}:${process.env.PATH}` };
    const out = await json(
      dir,
      ['run', '--agents', 'claude:1', '--once', '--integrate', '--board', board, '--backoff', '0'],
      env,
    );
    assert.deepEqual(
      out.runs.map((r: { submitted: boolean }) => r.submitted),
      [false, true],
      'the first try exits without submitting, the retry submits',
    );
    const task = id('Step RETRIED');
    const { change } = (await json(dir, ['show', task])).task as {
      change: { commits: { subject: string }[]; paths: string[]; merged_as?: string };
    };
    assert.deepEqual(
      change.commits.map((c) => c.subject),
      [`task ${task}`, 'first try'],
      "both tries' commits are in the change record",
    );
    assert.deepEqual([...change.paths].sort(), ['first.txt', `t-${task}.txt`]);
    assert.ok(change.merged_as, JSON.stringify(change));
    assert.equal(git(dir, 'show', 'main:first.txt'), 'first', "the first try's work is merged");
    assert.equal(git(dir, 'show', `main:t-${task}.txt`), task, "the second try's work is merged");
  });

  test('an agent idle only as its process ends is reported exited with no idle state before it; one that stays idle is reported idle', async () => {
    const dir = repo();
    const board = 'idle-reports';
    const id = await postPlan(dir, board, [
      { ref: 'q', title: 'Step QUICK' },
      { ref: 'i', title: 'Step IDLES' },
    ]);
    const env = { PATH: `${scriptedClaude()}:${process.env.PATH}` };
    const out = await json(dir, ['run', '--agents', 'claude:2', '--once', '--board', board, '--retries', '0'], env);
    assert.equal(out.runs.length, 2, JSON.stringify(out.runs));
    const res = await d.fetch(`/v1/events?format=json&limit=1000&since=0&board=${board}`);
    const { events } = (await res.json()) as {
      events: { type: string; task_id: string | null; data: { state?: string } }[];
    };
    const states = (title: string) =>
      events
        .filter((e) => e.task_id === id(title) && (e.type === 'agent.state' || e.type === 'agent.exited'))
        .map((e) => (e.type === 'agent.exited' ? 'exited' : e.data.state));
    assert.deepEqual(states('Step QUICK'), ['exited']);
    assert.deepEqual(states('Step IDLES'), ['idle', 'exited']);
  });

  test("--keep-worktrees keeps a merged task's work tree", async () => {
    const dir = repo();
    const board = 'keep';
    const id = await postPlan(dir, board, [{ ref: 'k', title: 'Step k LINGERS' }]);
    const env = { PATH: `${scriptedClaude()}:${process.env.PATH}` };
    const r = await coordIn(
      dir,
      ['run', '--agents', 'claude:1', '--once', '--integrate', '--keep-worktrees', '--board', board],
      env,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.ok((await show(dir, id('Step k LINGERS'))).change?.merged_as);
    // The log says the agent submitted before it says the task merged (it lingers after its submit).
    const said = (what: RegExp) => r.stderr.split('\n').findIndex((line) => what.test(line));
    assert.ok(said(/ submitted/) >= 0 && said(/ submitted/) < said(/ merged into main/), r.stderr);
    assert.equal(git(join(`${dir}.worktrees`, id('Step k LINGERS')), 'status', '--porcelain'), '', 'kept, clean');
  });

  test('coord run --stop: the running agent is asked to stop, and its task released with the lost-work note', async () => {
    const dir = repo();
    const board = 'stop';
    const id = await postPlan(dir, board, [{ ref: 'h', title: 'Step WAITS' }]);
    const bin = scriptedClaude();
    const env = childEnv({ COORD_STATE: d.stateDir, PATH: `${bin}:${process.env.PATH}` });
    const running = runProcess(NODE, [...BASE, 'run', '--agents', 'claude:1', '--board', board, '--grace', '5'], {
      cwd: dir,
      env,
    });
    const task = id('Step WAITS');
    await waitFor(
      async () => {
        const { runs } = (await (await d.fetch('/v1/runs')).json()) as {
          runs: { task_id: string; pid: number | null }[];
        };
        return (
          runs.some((r) => r.task_id === task && r.pid !== null) &&
          existsSync(join(`${dir}.worktrees`, task, 'half.txt'))
        );
      },
      'the agent to be working',
      120_000,
    );
    const stopped = await coordIn(dir, ['run', '--stop', '--board', board]);
    assert.equal(stopped.code, 0, stopped.stderr);
    const done = await running;
    assert.equal(done.code, 0, done.stderr);
    assert.equal(
      readFileSync(join(bin, `asked-${task}`), 'utf8'),
      'asked\n',
      'the agent was asked (SIGTERM), not killed',
    );
    const shown = await show(dir, task);
    assert.equal(shown.state, 'queued');
    const notes = shown.notes.map((n) => n.text).join('\n');
    assert.match(notes, /coord run stopped claude#/);
    assert.match(notes, /work left in .*: 1 commit since the claim \([0-9a-f]+ "half done"\)/, 'the lost-work note');
  });
});

describe('coord serve --run: the supervisor in the daemon', () => {
  test('a bad --run is refused before the daemon starts', async () => {
    const r = await runProcess(
      NODE,
      [...BASE, 'serve', '--port', '0', '--state', tempDir('coord-run-serve-'), '--run', 'nosuch:1'],
      {
        cwd: ROOT,
        env: childEnv(),
      },
    );
    assert.equal(r.code, 1);
    assert.match(r.stderr, /unknown client "nosuch"/);
  });

  test("it launches an agent for the repository's ready task, lists it in GET /v1/runs, and ends the try as coord run does", async () => {
    const dir = repo();
    const bin = crashingClaude();
    const d = await spawnDaemon({
      args: ['--run', 'claude:1', '--run-repo', dir],
      env: { PATH: `${bin}:${process.env.PATH}` },
    });
    try {
      const posted = await runProcess(NODE, [...BASE, 'post', 'For the daemon', '--json'], {
        cwd: dir,
        env: childEnv({ COORD_STATE: d.stateDir }),
      });
      assert.equal(posted.code, 0, posted.stderr);
      const id = JSON.parse(posted.stdout).task.id as string;
      const end = Date.now() + 120_000;
      let state = '';
      while (state !== 'failed' && Date.now() < end) {
        const res = await d.fetch(`/v1/tasks/${id}`);
        state = ((await res.json()) as { task: { state: string } }).task.state;
        if (state !== 'failed') await new Promise((r) => setTimeout(r, 250));
      }
      assert.equal(state, 'failed', d.stderr());
      const { runs } = (await (await d.fetch('/v1/runs')).json()) as { runs: { task_id: string; state: string }[] };
      assert.deepEqual(
        runs.filter((r) => r.task_id === id).map((r) => r.state),
        ['exited', 'exited'],
      );
    } finally {
      await d.stop();
    }
  });
});
