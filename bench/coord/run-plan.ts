/**
 * SPEC §18: a plan of independent trivial tasks through `coord run --agents claude:N --once --integrate`, with
 * the real Claude Code (where `npm run agents:install` put it) against the fake Anthropic server the agent
 * tests use, against a shell script doing the same steps with no supervision and the same parallelism
 * (`xargs -P N`): per task `git worktree add -b`, `claude -p` there, wait for it, `git merge` it into main
 * (one merge at a time, under flock). Each task's model script writes one file and commits it; coord's
 * agent then also calls submit_result (one model turn more: coord's contract), the floor's just stops.
 * Timed on each side: from the command's start to its end with every task merged into main (checked).
 * The daemon (coord) and the plan are set up before the clock starts, as a person's would be.
 *
 * `contract` is the floor plus what §18's contract adds inside the client whoever supervises it: an MCP server
 * (a dependency-free one that answers at once, test/agents/noop-mcp-server.mjs) and one model turn more (a call
 * of its tool where coord's agent calls submit_result). What coord costs beyond it is coord's own.
 *
 *   { dir, how: 'coord' | 'floor' | 'contract', tasks, parallel, trace? } → ms for the whole plan (trace: its
 *   timeline on stderr)
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeAnthropic } from '../../test/agents/fake-anthropic.js';
import type { Step } from '../../test/agents/fake-model.js';
import { cleanEnv, clientBin } from '../../test/agents/support.js';
import { childMain, REPO_ROOT, runChild } from '../lib/child.js';
import { SkipError } from '../lib/types.js';
import { startCoordDaemon } from './daemon.js';

export const FILE = 'bench/coord/run-plan.ts';

interface Args {
  dir: string;
  how: 'coord' | 'floor' | 'contract';
  tasks: number;
  parallel: number;
  /** Print the run's timeline to stderr: each model request (its task, its step) and each `coord run` log line. */
  trace?: boolean;
}

export const runPlan = (a: Args): Promise<number> => runChild<number>(FILE, a, { timeoutMs: 900_000 });

const COORD_BIN = join(REPO_ROOT, 'bin', 'coord.js');
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** The command's stderr lines as they came (for `trace`). */
const logged: [number, string][] = [];

/** Runs a command to its end; rejects with its output when it fails. */
function runToEnd(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out = (out + d).slice(-4000);
    });
    child.stderr.on('data', (d) => {
      for (const line of String(d).split('\n')) if (line.trim()) logged.push([Date.now(), line.slice(0, 140)]);
      out = (out + d).slice(-4000);
    });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited ${code}: ${out}`))));
  });
}

/** One task's model script: write its file in its work tree, commit it; coord's agent then submits. */
const script = (tree: string, n: number, submit: string | null | Step): Step[] => [
  { tool: 'Write', args: { file_path: join(tree, 'src', `t${n}.ts`), content: `export const t${n} = ${n};\n` } },
  { tool: 'Bash', args: { command: `git add -A && git commit -q -m "task ${n}"`, description: 'commit' } },
  ...(submit === null
    ? []
    : [
        typeof submit === 'string'
          ? ({ tool: 'mcp__coord__submit_result', args: { task_id: submit, status: 'completed' } } as Step)
          : submit,
      ]),
  { say: 'done' },
];

/** The floor: the same steps as a person's script, `parallel` tasks at a time. */
const FLOOR_TASK = `set -e
n="$1"
git -C "$REPO" worktree add -q -b "task/$n" "$REPO.wt/$n" main
cd "$REPO.wt/$n"
claude -p "coord task #f$n: add src/t$n.ts and commit it" --output-format stream-json --verbose \\
  --permission-mode acceptEdits --allowedTools "Bash(git:*),Read,Edit,Write,Glob,Grep$ALLOW" $MCP >/dev/null
flock "$REPO.merge.lock" git -C "$REPO" merge -q --no-edit "task/$n"
`;
/** The contract's MCP server for `contract`: one that answers at once, given as coord run gives coord's. */
const NOOP_MCP = JSON.stringify({
  mcpServers: {
    noop: {
      type: 'stdio',
      command: process.execPath,
      args: [join(REPO_ROOT, 'test/agents/noop-mcp-server.mjs')],
      alwaysLoad: true,
    },
  },
});

childMain<Args>(FILE, async (a) => {
  if (!existsSync(clientBin('claude'))) throw new SkipError('Claude Code is not installed (npm run agents:install)');
  const repo = join(a.dir, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  git(a.dir, 'init', '-q', '-b', 'main', repo);
  git(repo, 'config', 'user.email', 'bench@example.com');
  git(repo, 'config', 'user.name', 'bench');
  writeFileSync(join(repo, 'README.md'), '# bench\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'init');
  const home = join(a.dir, 'home');
  mkdirSync(join(home, '.config'), { recursive: true });
  const fake = await startFakeAnthropic([]);
  // Claude Code's temporary folder is the round's own on every side (coord run gives each launch its own anyway):
  // one left in /tmp/claude-<uid> per task would slow every later round of the contenders that leave them.
  const claudeTmp = join(a.dir, 'claude-tmp');
  mkdirSync(claudeTmp, { mode: 0o700 });
  const env = cleanEnv(home, {
    CLAUDE_CODE_TMPDIR: claudeTmp,
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: 'sk-ant-fake-key',
    ENABLE_TOOL_SEARCH: 'false',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  });
  const taskOf = (raw: string) => /coord task #([A-Za-z0-9_-]+)/.exec(raw)?.[1] ?? null;
  const numbers = Array.from({ length: a.tasks }, (_, i) => i + 1);
  try {
    let ms: number;
    let t0 = 0;
    if (a.how !== 'coord') {
      const contract = a.how === 'contract';
      const extra: Step | null = contract ? { tool: 'mcp__noop__noop', args: {} } : null;
      fake.scriptBy(taskOf, Object.fromEntries(numbers.map((n) => [`f${n}`, script(`${repo}.wt/${n}`, n, extra)])));
      writeFileSync(join(a.dir, 'task.sh'), FLOOR_TASK);
      writeFileSync(join(a.dir, 'mcp.json'), NOOP_MCP);
      t0 = Date.now();
      await runToEnd(
        'sh',
        ['-c', `printf '%s\\n' ${numbers.join(' ')} | xargs -P ${a.parallel} -n 1 sh "${join(a.dir, 'task.sh')}"`],
        repo,
        {
          ...env,
          REPO: repo,
          ALLOW: contract ? ',mcp__noop' : '',
          MCP: contract ? `--mcp-config ${join(a.dir, 'mcp.json')} --strict-mcp-config` : '',
        },
      );
      ms = Date.now() - t0;
    } else {
      const daemon = await startCoordDaemon({ stateDir: join(a.dir, 'state') });
      try {
        const cenv = { ...env, COORD_STATE: daemon.stateDir };
        const plan = { tasks: numbers.map((n) => ({ ref: `t${n}`, title: `Task ${n}` })) };
        writeFileSync(join(a.dir, 'plan.json'), JSON.stringify(plan));
        const posted = execFileSync(process.execPath, [COORD_BIN, 'plan', join(a.dir, 'plan.json'), '--json'], {
          cwd: repo,
          env: cenv,
          encoding: 'utf8',
        });
        const tasks = Object.values(
          (JSON.parse(posted) as { tasks: Record<string, { id: string; title: string }> }).tasks,
        );
        fake.scriptBy(
          taskOf,
          Object.fromEntries(
            tasks.map((t) => {
              const n = Number(t.title.split(' ')[1]);
              return [t.id, script(join(`${repo}.worktrees`, t.id), n, t.id)];
            }),
          ),
        );
        t0 = Date.now();
        await runToEnd(
          process.execPath,
          [COORD_BIN, 'run', '--agents', `claude:${a.parallel}`, '--once', '--integrate', '--retries', '0'],
          repo,
          cenv,
        );
        ms = Date.now() - t0;
      } finally {
        await daemon.stop();
      }
    }
    // Every task's file is in main, or the round measured nothing.
    for (const n of numbers) git(repo, 'cat-file', '-e', `main:src/t${n}.ts`);
    if (a.trace) {
      const rows = logged.concat(
        fake.requests.map((r) => [
          r.at,
          `model: ${taskOf(JSON.stringify(r.body)) ?? '-'} ${JSON.stringify(r.step ?? '').slice(0, 60)}`,
        ]),
      );
      rows.sort((x, y) => x[0] - y[0]);
      for (const [at, line] of rows) process.stderr.write(`${String(at - t0).padStart(6)} ms  ${line}\n`);
    }
    return ms;
  } finally {
    await fake.close();
  }
});
