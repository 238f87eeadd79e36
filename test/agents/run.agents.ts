/**
 * SPEC §18 with the real Claude Code, driven by the fake Anthropic server: `coord run --agents claude:1 --once`
 * claims the ready task for a fresh agent, makes its work tree on `coord/<id>-<slug>` from the target's tip,
 * starts `claude -p` there with coord's MCP server and hooks for that process only, and the agent — whose MCP
 * session starts holding the claim — edits, commits and submits with no claim_id of its own.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { modelEnv } from './clients.js';
import { startFakeAnthropic } from './fake-anthropic.js';
import type { Step } from './fake-model.js';
import { cleanEnv, coord, describeRun, isolatedHome, makeRepo, ROOT_TSX, run } from './support.js';

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
  let daemon: SpawnedDaemon;
  before(async () => {
    daemon = await spawnDaemon();
  });
  after(async () => {
    await daemon.stop();
  });

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
    try {
      const r = await run(
        process.execPath,
        [
          '--import',
          ROOT_TSX,
          join(ROOT, 'src/main.ts'),
          'run',
          '--agents',
          'claude:1',
          '--once',
          '--json',
          '--setup',
          'test -f .env && echo "$COORD_PORT" > .port',
        ],
        { cwd: repo, env: { ...env, ...modelEnv('claude', fake) }, timeoutMs: 240_000 },
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
      // The submit went through with the claim the session started with (no claim_id in the model's call).
      const submitted = fake.results().find((x) => x.tool === 'mcp__coord__submit_result');
      assert.ok(submitted && !submitted.isError, JSON.stringify(fake.results()));
      assert.deepEqual(snapshot(userFiles(home, repo)), before, "the user's own Claude Code files are unchanged");
      assert.deepEqual(
        readdirSync(join(home, '.claude')).filter((f) => f === 'settings.json'),
        ['settings.json'],
      );
    } finally {
      await fake.close();
    }
  });
});

const ROOT = new URL('../../', import.meta.url).pathname;
