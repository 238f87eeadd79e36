/**
 * SPEC §18 with the real Claude Code, driven by the fake Anthropic server: `coord run --agents claude:1 --once`
 * claims the ready task for a fresh agent, makes its work tree on `coord/<id>-<slug>` from the target's tip,
 * starts `claude -p` there with coord's MCP server and hooks for that process only, and the agent — whose MCP
 * session starts holding the claim — edits, commits and submits with no claim_id of its own.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { COORD, type SpawnedDaemon } from '../support/daemon.js';
import { suiteDaemon } from '../support/suite-daemon.js';
import { modelEnv } from './clients.js';
import { startFakeAnthropic } from './fake-anthropic.js';
import type { Step } from './fake-model.js';
import { startFakeOpenAI } from './fake-openai.js';
import { cleanEnv, coord, describeRun, isolatedHome, makeRepo, run, type Started, start } from './support.js';

const coordRunArgs = (args: string[]) => [...COORD.slice(1), 'run', ...args];

/** `coord run …` in `repo`, with the fake model wired in. */
const startRun = (repo: string, env: NodeJS.ProcessEnv, args: string[]): Started =>
  start(process.execPath, coordRunArgs(args), { cwd: repo, env, timeoutMs: 300_000 });

interface TaskView {
  state: string;
  notes?: { agent: string; text: string }[];
  change: { branch: string; worktree: string; commits: { subject: string }[] } | null;
}
const showTask = async (repo: string, env: NodeJS.ProcessEnv, id: string): Promise<TaskView> => {
  const shown = await coord(['show', id, '--json'], { cwd: repo, env });
  return (JSON.parse(shown.stdout) as { task: TaskView }).task;
};
const postTask = async (repo: string, env: NodeJS.ProcessEnv, title: string): Promise<string> => {
  const posted = await coord(['post', title, '--json'], { cwd: repo, env });
  assert.equal(posted.code, 0, describeRun(posted));
  return (JSON.parse(posted.stdout) as { task: { id: string } }).task.id;
};
const agentEvents = async (daemon: SpawnedDaemon, types: string[]) => {
  const res = await daemon.fetch('/v1/events?limit=1000&format=json');
  const { events } = (await res.json()) as {
    events: { type: string; task_id: string | null; agent: string | null; data: Record<string, unknown> }[];
  };
  return events.filter((e) => types.includes(e.type));
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const git = (cwd: string, ...a: string[]) => execFileSync('git', a, { cwd, encoding: 'utf8' }).trim();

/** The files a person's own Claude Code setup lives in: coord run must not touch them. */
const userFiles = (home: string, repo: string) => [
  join(home, '.claude', 'settings.json'),
  join(home, '.claude', 'CLAUDE.md'),
  join(repo, '.mcp.json'),
  join(repo, '.claude', 'settings.json'),
  join(repo, 'CLAUDE.md'),
];
const snapshot = (paths: string[]) => paths.map((p) => (existsSync(p) ? readFileSync(p, 'utf8') : null));

/** The model's script for one task: edit a file, commit it with git through Bash, submit through coord. */
const doTask = (tree: string, taskId: string, from: string, to: string): Step[] => [
  { tool: 'Read', args: { file_path: join(tree, 'src/a.ts') } },
  { tool: 'Edit', args: { file_path: join(tree, 'src/a.ts'), old_string: from, new_string: to } },
  { tool: 'Bash', args: { command: 'git add -A && git commit -q -m "change a"', description: 'commit' } },
  { tool: 'mcp__coord__submit_result', args: { task_id: taskId, status: 'completed', result: { summary: 'done' } } },
  { say: 'done' },
];

describe('coord run with the real Claude Code', () => {
  const daemon = suiteDaemon();

  it('claude:1 --once: the ready task is claimed for a fresh agent, done in its own work tree, committed and submitted', async () => {
    const repo = makeRepo('coord-run-');
    const home = isolatedHome('coord-run-claude-');
    // A person's own settings, which coord run must leave byte for byte.
    execFileSync('mkdir', ['-p', join(home, '.claude')]);
    writeFileSync(join(home, '.claude', 'settings.json'), '{\n  "theme": "dark"\n}\n');
    const before = snapshot(userFiles(home, repo));
    // An ignored file .worktreeinclude names is copied into the work tree.
    writeFileSync(join(repo, '.gitignore'), '.env\n');
    writeFileSync(join(repo, '.worktreeinclude'), '.env\n');
    writeFileSync(join(repo, '.env'), 'SECRET=1\n');
    git(repo, 'add', '.gitignore', '.worktreeinclude');
    git(repo, 'commit', '-q', '-m', 'ignore .env');
    const env = cleanEnv(home, { COORD_STATE: daemon.stateDir });
    const posted = await coord(['post', 'Change a to two', '--json'], { cwd: repo, env });
    assert.equal(posted.code, 0, describeRun(posted));
    const id = (JSON.parse(posted.stdout) as { task: { id: string } }).task.id;
    const tree = `${repo}.worktrees/${id}`;
    const fake = await startFakeAnthropic(doTask(tree, id, 'export const a = 1;', 'export const a = 2;'));
    // Claude Code's own default: tool search on, which defers MCP tools behind a ToolSearch turn.
    const { ENABLE_TOOL_SEARCH: _deferOff, ...model } = modelEnv('claude', fake);
    try {
      const r = await run(
        process.execPath,
        [
          ...COORD.slice(1),
          'run',
          '--agents',
          'claude:1',
          '--once',
          '--json',
          '--setup',
          'test -f .env && echo "$COORD_PORT" > .port',
        ],
        { cwd: repo, env: { ...env, ...model }, timeoutMs: 240_000 },
      );
      assert.equal(r.code, 0, describeRun(r));
      const out = JSON.parse(r.stdout) as { runs: { agent: string; task_id: string; submitted: boolean }[] };
      assert.equal(out.runs.length, 1, describeRun(r));
      const [only] = out.runs;
      assert.match(only?.agent ?? '', /^claude#[0-9a-f]{4}$/);
      assert.equal(only?.submitted, true, describeRun(r));

      const shown = await coord(['show', id, '--json'], { cwd: repo, env });
      const task = (JSON.parse(shown.stdout) as { task: Record<string, unknown> }).task as {
        state: string;
        change: { branch: string; worktree: string; commits: { subject: string }[] } | null;
      };
      assert.equal(task.state, 'completed', shown.stdout);
      assert.equal(task.change?.branch, `coord/${id}-change-a-to-two`);
      assert.deepEqual(
        task.change?.commits.map((c) => c.subject),
        ['change a'],
      );
      assert.equal(git(tree, 'show', 'HEAD:src/a.ts'), 'export const a = 2;');
      // Made runnable first: the ignored file copied, the setup run with its reserved port.
      assert.equal(readFileSync(join(tree, '.env'), 'utf8'), 'SECRET=1\n');
      assert.match(readFileSync(join(tree, '.port'), 'utf8'), /^\d+\n$/);
      // The model was told its task, its claim and its contract.
      const first = JSON.stringify(fake.turns()[0]?.body ?? '');
      assert.match(first, new RegExp(`coord task #${id} \\(claim `));
      assert.match(first, /submit_result/);
      // coord's tools are in the first request whole (the launch's `alwaysLoad`): the model calls submit_result
      // without a ToolSearch turn first.
      const firstBody = fake.turns()[0]?.body as { tools?: { name: string; input_schema?: unknown }[] } | undefined;
      const tools = firstBody?.tools ?? [];
      const submitTool = tools.find((t) => t.name === 'mcp__coord__submit_result');
      assert.ok(submitTool?.input_schema, `coord's tools deferred: ${tools.map((t) => t.name).join(', ')}`);
      // The submit went through with the claim the session started with (no claim_id in the model's call).
      const submitted = fake.results().find((x) => x.tool === 'mcp__coord__submit_result');
      assert.ok(submitted && !submitted.isError, JSON.stringify(fake.results()));
      assert.deepEqual(snapshot(userFiles(home, repo)), before, "the user's own Claude Code files are unchanged");
      // Claude Code's folder for the work tree went with the launch: none is left in the shared temporary folder.
      const shared = join(tmpdir(), `claude-${process.getuid?.() ?? 0}`);
      const left = existsSync(shared) ? readdirSync(shared).filter((f) => f.endsWith(id)) : [];
      assert.deepEqual(left, [], `Claude Code's temporary folders left for the work tree in ${shared}`);
      assert.deepEqual(
        readdirSync(join(home, '.claude')).filter((f) => f === 'settings.json'),
        ['settings.json'],
      );
    } finally {
      await fake.close();
    }
  });
  it("an agent's shell command that changes a file another agent holds is told so, with no hook before the command: the daemon compares it with its look at the agent's start", async (t) => {
    const repo = makeRepo('coord-run-shell-');
    const env = cleanEnv(isolatedHome('coord-run-shell-'), { COORD_STATE: daemon.stateDir });
    const held = await coord(['lock', 'src/a.ts', '--agent', 'alice', '--lease', '600', '--json'], { cwd: repo, env });
    assert.equal(held.code, 0, describeRun(held));
    const id = await postTask(repo, env, 'Touch a and b');
    const fake = await startFakeAnthropic([
      { tool: 'Bash', args: { command: 'echo x >> src/a.ts && echo y >> src/b.ts', description: 'append' } },
      {
        tool: 'Bash',
        args: { command: 'git restore src/a.ts && git add -A && git commit -q -m b', description: 'fix' },
      },
      { tool: 'mcp__coord__submit_result', args: { task_id: id, status: 'completed' } },
      { say: 'done' },
    ]);
    try {
      const r = await run(process.execPath, coordRunArgs(['--agents', 'claude:1', '--once', '--retries', '0']), {
        cwd: repo,
        env: { ...env, ...modelEnv('claude', fake) },
        timeoutMs: 240_000,
      });
      assert.equal(r.code, 0, describeRun(r));
      const told = JSON.stringify(fake.turns().map((x) => x.body));
      const m =
        /lock_conflict: your command changed src\/a\.ts, which alice holds — restore it \(git restore src\/a\.ts\)/.exec(
          told,
        );
      t.diagnostic(`claude (coord run): ${m ? m[0] : told.slice(-2000)}`);
      assert.ok(m, 'the model was told of the held file its command changed');
      // src/b.ts was free: the command's change to it is the agent's (no conflict named for it).
      assert.doesNotMatch(told, /your command changed src\/b\.ts/);
      assert.equal((await showTask(repo, env, id)).state, 'completed');
    } finally {
      await fake.close();
    }
  });
  it('an agent that exits without submitting: its task is noted (with the calls its permission mode refused), tried once more by a new agent, then failed with its last lines', async () => {
    const repo = makeRepo('coord-run-exit-');
    const env = cleanEnv(isolatedHome('coord-run-exit-'), { COORD_STATE: daemon.stateDir });
    const id = await postTask(repo, env, 'Something the model will not do');
    // The first try's model asks for a command its permission mode does not allow: headless, it is refused.
    const fake = await startFakeAnthropic([
      { tool: 'Bash', args: { command: 'npm test', description: 'run the tests' } },
      { say: 'I cannot do this.' },
      { say: 'Neither can I.' },
    ]);
    try {
      const r = await run(
        process.execPath,
        coordRunArgs(['--agents', 'claude:1', '--once', '--json', '--backoff', '0']),
        {
          cwd: repo,
          env: { ...env, ...modelEnv('claude', fake) },
          timeoutMs: 240_000,
        },
      );
      assert.equal(r.code, 0, describeRun(r));
      const out = JSON.parse(r.stdout) as { runs: { agent: string; submitted: boolean; attempt: number }[] };
      assert.deepEqual(
        out.runs.map((x) => [x.submitted, x.attempt]),
        [
          [false, 1],
          [false, 2],
        ],
      );
      assert.notEqual(out.runs[0]?.agent, out.runs[1]?.agent, 'the retry is a new agent');
      const task = await showTask(repo, env, id);
      assert.equal(task.state, 'failed');
      const notes = (task.notes ?? []).map((n) => n.text).join('\n');
      assert.match(notes, /without submitting; coord run tries again with claude#/);
      // What the permission mode refused is named in the note, with what to do about it.
      assert.match(notes, /Refused by its permission mode: Bash\(npm test\) \(allow it with --permission-mode/);
      assert.match(notes, /the task failed\. Its last lines:[\s\S]*Neither can I\./);
      const exits = await agentEvents(daemon, ['agent.exited']);
      assert.deepEqual(
        exits.filter((e) => e.task_id === id).map((e) => e.data.submitted),
        [false, false],
      );
    } finally {
      await fake.close();
    }
  });

  it('a 429 with a Retry-After past --pause-after pauses the task (lease held, no retry spent), resumes it and it is submitted', async () => {
    const repo = makeRepo('coord-run-429-');
    const env = cleanEnv(isolatedHome('coord-run-429-'), { COORD_STATE: daemon.stateDir });
    const id = await postTask(repo, env, 'Change a after the limit');
    const tree = `${repo}.worktrees/${id}`;
    const fake = await startFakeAnthropic([
      { say: 'limited', fail: { status: 429, retryAfterS: 4 } },
      ...doTask(tree, id, 'export const a = 1;', 'export const a = 3;'),
    ]);
    try {
      const r = await run(
        process.execPath,
        coordRunArgs(['--agents', 'claude:1', '--once', '--json', '--retries', '0', '--pause-after', '2']),
        { cwd: repo, env: { ...env, ...modelEnv('claude', fake) }, timeoutMs: 240_000 },
      );
      assert.equal(r.code, 0, describeRun(r));
      const out = JSON.parse(r.stdout) as { runs: { submitted: boolean; attempt: number }[]; launched: unknown[] };
      // --retries 0: a spent retry would have failed the task; the pause spent none.
      assert.deepEqual(
        out.runs.map((x) => [x.submitted, x.attempt]),
        [[true, 1]],
        describeRun(r),
      );
      assert.equal(out.launched.length, 2, 'started, then resumed after the reset');
      assert.equal((await showTask(repo, env, id)).state, 'completed');
      const paused = (await agentEvents(daemon, ['task.paused'])).filter((e) => e.task_id === id);
      assert.equal(paused.length, 1);
      // The claim was never given up while paused: one claim, no requeue.
      const requeued = (await agentEvents(daemon, ['task.requeued', 'task.claimed'])).filter((e) => e.task_id === id);
      assert.deepEqual(
        requeued.map((e) => e.type),
        ['task.claimed'],
      );
    } finally {
      await fake.close();
    }
  });

  it('a spent --budget-tokens launches nothing new', async () => {
    const repo = makeRepo('coord-run-budget-');
    const env = cleanEnv(isolatedHome('coord-run-budget-'), { COORD_STATE: daemon.stateDir });
    const first = await postTask(repo, env, 'First task');
    const second = await postTask(repo, env, 'Second task');
    const fake = await startFakeAnthropic([{ say: 'spent it all' }]);
    try {
      const r = await run(
        process.execPath,
        coordRunArgs(['--agents', 'claude:1', '--once', '--json', '--retries', '0', '--budget-tokens', '1']),
        { cwd: repo, env: { ...env, ...modelEnv('claude', fake) }, timeoutMs: 240_000 },
      );
      assert.equal(r.code, 0, describeRun(r));
      const out = JSON.parse(r.stdout) as { launched: { task_id: string }[]; spent: string | null };
      assert.equal(out.launched.length, 1, describeRun(r));
      assert.match(out.spent ?? '', /--budget-tokens 1 spent/);
      const states = [(await showTask(repo, env, first)).state, (await showTask(repo, env, second)).state].sort();
      assert.deepEqual(states, ['failed', 'queued']);
    } finally {
      await fake.close();
    }
  });

  it('SIGINT: the running agent is stopped within the grace period and its task released with a note', async () => {
    const repo = makeRepo('coord-run-sigint-');
    const env = cleanEnv(isolatedHome('coord-run-sigint-'), { COORD_STATE: daemon.stateDir });
    const id = await postTask(repo, env, 'A long task');
    let unblock: () => void = () => {};
    const held = new Promise<void>((r) => {
      unblock = r;
    });
    const fake = await startFakeAnthropic([{ say: 'thinking for a long time', before: () => held }]);
    try {
      const r = startRun(repo, { ...env, ...modelEnv('claude', fake) }, [
        '--agents',
        'claude:1',
        '--json',
        '--grace',
        '3',
      ]);
      const launched = await waitFor('the agent to be working', async () => {
        const res = await daemon.fetch('/v1/runs');
        const { runs } = (await res.json()) as { runs: { task_id: string; pid: number | null; state: string }[] };
        return runs.find((x) => x.task_id === id && x.pid !== null) ?? null;
      });
      await waitFor('the model to be asked', async () => fake.turns().length > 0);
      r.child.kill('SIGINT');
      const done = await r.done;
      assert.equal(done.code, 0, describeRun(done));
      assert.equal(alive(launched.pid ?? 0), false, 'the agent process is gone');
      const task = await showTask(repo, env, id);
      assert.equal(task.state, 'queued');
      assert.match((task.notes ?? []).map((n) => n.text).join('\n'), /coord run stopped claude#/);
    } finally {
      unblock();
      await fake.close();
    }
  });

  it('two supervisors on one board: every task is launched exactly once', async () => {
    const repo = makeRepo('coord-run-two-');
    const env = cleanEnv(isolatedHome('coord-run-two-'), { COORD_STATE: daemon.stateDir });
    const ids: string[] = [];
    for (const t of ['one', 'two', 'three', 'four']) ids.push(await postTask(repo, env, `Task ${t}`));
    const fake = await startFakeAnthropic([]);
    try {
      const args = ['--agents', 'claude:2', '--once', '--json', '--retries', '0'];
      const menv = { ...env, ...modelEnv('claude', fake) };
      const [a, b] = [startRun(repo, menv, args), startRun(repo, menv, args)];
      const [ra, rb] = await Promise.all([a.done, b.done]);
      assert.equal(ra.code, 0, describeRun(ra));
      assert.equal(rb.code, 0, describeRun(rb));
      const launched = (await agentEvents(daemon, ['agent.launched'])).filter((e) => ids.includes(e.task_id ?? ''));
      assert.deepEqual(launched.map((e) => e.task_id).sort(), [...ids].sort(), 'each task launched once');
    } finally {
      await fake.close();
    }
  });
});

describe('coord run --integrate with the real Claude Code and Codex', () => {
  const daemon = suiteDaemon();

  it('a plan of 5 tasks with dependencies, claude:2,codex:1 --integrate: all merged in dependency order, each on its own branch and work tree, never more processes than asked', async () => {
    const repo = makeRepo('coord-run-plan-');
    const home = isolatedHome('coord-run-plan-');
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(join(home, '.claude', 'settings.json'), '{\n  "theme": "dark"\n}\n');
    const fakeClaude = await startFakeAnthropic([]);
    const fakeCodex = await startFakeOpenAI([]);
    // The harness's model wiring for Codex, in the user's own config.toml (coord run must leave it as it is).
    mkdirSync(join(home, '.codex'), { recursive: true });
    writeFileSync(
      join(home, '.codex', 'config.toml'),
      `model = "gpt-5.5"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\nbase_url = "${fakeCodex.url}/v1"\nwire_api = "responses"\nenv_key = "FAKE_MODEL_KEY"\n`,
    );
    const userFilesNow = [join(home, '.claude', 'settings.json'), join(home, '.codex', 'config.toml')];
    const before = snapshot(userFilesNow);
    const env = cleanEnv(home, { COORD_STATE: daemon.stateDir });
    const plan = {
      tasks: [
        { ref: 'a', title: 'Step a' },
        { ref: 'b', title: 'Step b', blocked_by: ['a'] },
        { ref: 'c', title: 'Step c' },
        { ref: 'd', title: 'Step d', blocked_by: ['b', 'c'] },
        { ref: 'e', title: 'Step e' },
      ],
    };
    writeFileSync(join(repo, '..', 'plan.json'), JSON.stringify(plan));
    const posted = await coord(['plan', join(repo, '..', 'plan.json'), '--json'], { cwd: repo, env });
    assert.equal(posted.code, 0, describeRun(posted));
    const tasks = Object.values(
      (JSON.parse(posted.stdout) as { tasks: Record<string, { id: string; title: string }> }).tasks,
    );
    const byRef = new Map(tasks.map((t) => [t.title.slice(-1), t.id]));
    const claudeScripts: Record<string, Step[]> = {};
    const codexScripts: Record<string, Step[]> = {};
    for (const t of tasks) {
      const file = `src/${t.title.slice(-1)}.ts`;
      const commit = `git add -A && git commit -q -m "step ${t.title.slice(-1)}"`;
      const submit = { tool: 'mcp__coord__submit_result', args: { task_id: t.id, status: 'completed' } };
      claudeScripts[t.id] = [
        {
          tool: 'Write',
          args: { file_path: join(`${repo}.worktrees`, t.id, file), content: `export const x = '${t.id}';\n` },
        },
        { tool: 'Bash', args: { command: commit, description: 'commit' } },
        submit,
        { say: 'done' },
      ];
      codexScripts[t.id] = [
        {
          tool: 'apply_patch',
          args: { input: `*** Begin Patch\n*** Add File: ${file}\n+export const x = '${t.id}';\n*** End Patch\n` },
        },
        { tool: 'exec_command', args: { cmd: commit } },
        submit,
        { say: 'done' },
      ];
    }
    const taskOf = (raw: string) => /coord task #([A-Za-z0-9_-]+)/.exec(raw)?.[1] ?? null;
    fakeClaude.scriptBy(taskOf, claudeScripts);
    fakeCodex.scriptBy(taskOf, codexScripts);
    const most = { claude: 0, codex: 0 };
    try {
      const r = startRun(repo, { ...env, ...modelEnv('claude', fakeClaude), FAKE_MODEL_KEY: 'sk-fake' }, [
        '--agents',
        'claude:2,codex:1',
        '--once',
        '--integrate',
        '--json',
        '--retries',
        '0',
        '--permission-mode',
        'codex=danger-full-access',
      ]);
      const sampler = setInterval(() => {
        const ps = execFileSync('ps', ['-eo', 'ppid=,args='], { encoding: 'utf8' }).split('\n');
        const mine = ps.filter((l) => l.trim().startsWith(`${r.child.pid} `));
        for (const c of ['claude', 'codex'] as const) {
          const n = mine.filter((l) => new RegExp(`/${c} (-p|exec)`).test(l)).length;
          most[c] = Math.max(most[c], n);
        }
      }, 250);
      const done = await r.done;
      clearInterval(sampler);
      assert.equal(done.code, 0, describeRun(done));
      assert.ok(
        most.claude <= 2 && most.codex <= 1,
        `at most 2 claude and 1 codex at once, saw ${JSON.stringify(most)}`,
      );
      const out = JSON.parse(done.stdout) as { launched: { client: string; task_id: string }[] };
      t_diag(`launched: ${JSON.stringify(out.launched)}; most at once: ${JSON.stringify(most)}`);
      const merged = (await agentEvents(daemon, ['task.integrated'])).map((e) => e.task_id);
      assert.deepEqual([...merged].sort(), tasks.map((t) => t.id).sort(), describeRun(done));
      const at = (ref: string) => merged.indexOf(byRef.get(ref) ?? '');
      assert.ok(at('a') < at('b') && at('b') < at('d') && at('c') < at('d'), `merged in dependency order: ${merged}`);
      for (const t of tasks) {
        const shown = await showTask(repo, env, t.id);
        assert.equal(shown.change?.branch, `coord/${t.id}-step-${t.title.slice(-1)}`);
        assert.equal(shown.change?.worktree, join(realpathSync(`${repo}.worktrees`), t.id));
        assert.equal(git(repo, 'show', `main:src/${t.title.slice(-1)}.ts`), `export const x = '${t.id}';`);
      }
      assert.deepEqual(snapshot(userFilesNow), before, "the user's own client config files are byte-identical");
    } finally {
      await fakeClaude.close();
      await fakeCodex.close();
    }
  });
});

const t_diag = (s: string) => process.stderr.write(`# ${s}\n`);
