/**
 * SPEC §14 with the real clients (issue 21): agent A edits src/a.ts in work tree A, commits and submits —
 * its lock becomes a hold of that work tree. A real client set up by `coord setup <client> --write` alone,
 * started in work tree B, has its model's edit of src/a.ts refused through the client's own edit tool
 * (the file in B unchanged, the model told the hold's reason); once A's branch is merged into the target
 * the same edit goes through. Claude Code also reads the warning line for a path changed, not held, in A.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { suiteDaemon } from '../support/suite-daemon.js';
import { type Agent, CLIENT_NAMES, editResults, editSteps, readyAgent, startAgent, startFake } from './clients.js';
import type { Step } from './fake-model.js';
import { coord, describeRun, makeRepo } from './support.js';

const A1 = 'export const a = 1;';
const A2 = 'export const a = 2;';
const B1 = 'export const b = 1;';
const B2 = 'export const b = 2;';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: 'pipe',
  });

/** One headless run of `agent` in `cwd` with these steps; the client's edit results as the model read them. */
async function run(agent: Agent, cwd: string, steps: Step[], prompt: string) {
  const fake = await startFake(agent.client, [...steps, { say: 'done' }]);
  try {
    const r = await startAgent(agent, fake, cwd, prompt).done;
    assert.equal(r.code, 0, describeRun(r));
  } finally {
    await fake.close();
  }
  return { edits: editResults(agent.client, fake).map((r) => r.text), fake };
}

describe('real clients meet a change hold of another work tree (SPEC §14)', () => {
  const daemon = suiteDaemon();

  it('two real clients in two work trees: Claude Code as agent A claims, edits, is refused a dirty submit, submits after the commit; Codex as agent B is refused its edit of that path with the hold reason, allowed after the merge', async (t) => {
    const main = realpathSync(makeRepo('coord-agent-two-'));
    const wtA = `${main}-wt-a`;
    const wtB = `${main}-wt-b`;
    git(main, 'worktree', 'add', '-q', '-b', 'feat-a', wtA);
    git(main, 'worktree', 'add', '-q', '-b', 'feat-b', wtB);
    const a = await readyAgent(t, 'claude', wtA, daemon.stateDir);
    const b = a && (await readyAgent(t, 'codex', wtB, daemon.stateDir));
    if (!a || !b) return;
    const posted = await coord(['post', 'Set a to 3', '--json'], { cwd: main, env: a.env });
    const id = (JSON.parse(posted.stdout) as { task: { id: string } }).task.id;
    const submit = { tool: 'mcp__coord__submit_result', args: { task_id: id, status: 'completed' } };
    const fakeA = await startFake('claude', [
      { tool: 'mcp__coord__claim_task', args: { task_id: id } },
      ...editSteps('claude', wtA, 'src/a.ts', A1, 'export const a = 3;'),
      submit,
      // Told to commit first, it does, with its own shell tool.
      { tool: 'Bash', args: { command: 'git commit -qam "a is 3"', description: 'Commit the change' } },
      submit,
      { say: 'done' },
    ]);
    try {
      const run = await startAgent(a, fakeA, wtA, `Claim #${id}, set a to 3, commit, submit.`, {
        extraArgs: ['--allowedTools', 'Bash(git commit:*)'],
      }).done;
      assert.equal(run.code, 0, describeRun(run));
    } finally {
      await fakeA.close();
    }
    const [dirty, done] = fakeA
      .results()
      .filter((r) => r.tool === submit.tool)
      .map((r) => r.text);
    t.diagnostic(`claude (A) was told at its first submit: ${JSON.stringify(dirty)}`);
    t.diagnostic(`claude (A) was told at its second submit: ${JSON.stringify(done)}`);
    assert.match(dirty ?? '', /uncommitted_changes: src\/a\.ts in .* is not committed — commit them/);
    assert.match(done ?? '', /change: 1 commit/);
    for (const args of [['changes'], ['locks'], ['show', id]]) {
      const r = await coord(args, { cwd: wtB, env: b.env });
      t.diagnostic(`coord ${args.join(' ')} in B:\n${r.stdout}`);
    }

    // B's model edits src/a.ts: refused. The branch is merged (as coord integrate would); the same edit goes through.
    const [refused] = (await run(b, wtB, editSteps('codex', wtB, 'src/a.ts', A1, A2), 'Set a to 2.')).edits;
    git(main, 'merge', '-q', '--no-edit', 'feat-a');
    const [allowed] = (await run(b, wtB, editSteps('codex', wtB, 'src/a.ts', A1, A2), 'Set a to 2.')).edits;
    const after = await coord(['changes'], { cwd: wtB, env: b.env });
    t.diagnostic(
      `after the merge: ${after.stdout}\nmain: ${git(main, 'log', '--oneline', '-3')}\nA: ${git(wtA, 'status', '--porcelain')}`,
    );
    t.diagnostic(`codex (B) was told: ${JSON.stringify(refused)}`);
    assert.match(
      refused ?? '',
      /lock_conflict: src\/a\.ts has changes not merged yet in worktree \.\.\/[^ ]*-wt-a \(branch feat-a, task #/,
    );
    assert.doesNotMatch(allowed ?? '', /lock_conflict/);
    assert.equal(readFileSync(join(wtB, 'src/a.ts'), 'utf8'), `${A2}\n`);
  });

  for (const client of CLIENT_NAMES) {
    it(`${client}: in work tree B, its model's edit of a path A committed and submitted is refused with the hold's reason, and goes through once A's branch is merged`, async (t) => {
      const main = realpathSync(makeRepo(`coord-agent-holds-${client}-`));
      const wtA = `${main}-wt-a`;
      const wtB = `${main}-wt-b`;
      git(main, 'worktree', 'add', '-q', '-b', 'feat-a', wtA);
      git(main, 'worktree', 'add', '-q', '-b', 'feat-b', wtB);
      const agent = await readyAgent(t, client, wtB, daemon.stateDir);
      if (!agent) return;
      const cli = (cwd: string, ...args: string[]) => coord([...args, '--json'], { cwd, env: agent.env });
      const json = async (cwd: string, ...args: string[]) => {
        const r = await cli(cwd, ...args);
        assert.equal(r.code, 0, describeRun(r));
        return JSON.parse(r.stdout);
      };

      // Agent A, through the CLI in work tree A: claim, lock, edit, commit, submit.
      const { task } = await json(main, 'post', 'Set a to 3', '--agent', 'lead');
      const grant = await json(wtA, 'claim', task.id, '--agent', 'agent-a');
      await json(wtA, 'lock', 'src/a.ts', '--agent', 'agent-a');
      writeFileSync(join(wtA, 'src/a.ts'), 'export const a = 3;\n');
      git(wtA, 'commit', '-qam', 'a is 3');
      const done = await json(wtA, 'submit', task.id, '--claim', grant.claim_id, '--ok');
      assert.deepEqual(done.task.change.paths, ['src/a.ts']);
      // A person's change in work tree A that nobody holds: a warning for B, not a block.
      writeFileSync(join(wtA, 'src/b.ts'), 'export const b = 9;\n');
      for (const args of [['changes'], ['locks']]) {
        const r = await coord(args, { cwd: wtB, env: agent.env });
        t.diagnostic(`${client}: coord ${args[0]} in B:\n${r.stdout}`);
      }

      const first = await run(agent, wtB, editSteps(client, wtB, 'src/a.ts', A1, A2), 'Set a to 2.');
      git(main, 'merge', '-q', '--no-edit', 'feat-a');
      const { edits: after, fake } = await run(
        agent,
        wtB,
        [...editSteps(client, wtB, 'src/a.ts', A1, A2), ...editSteps(client, wtB, 'src/b.ts', B1, B2)],
        'Set a and b to 2.',
      );
      const edits = [...first.edits, ...after];
      const [refused, allowed, warned] = edits;
      t.diagnostic(`${client}: the model was told ${JSON.stringify(refused)}`);
      assert.equal(edits.length, 3, JSON.stringify(fake.results()));
      assert.match(
        refused ?? '',
        new RegExp(
          `lock_conflict: src/a\\.ts has changes not merged yet in worktree \\.\\./[^ ]*-wt-a \\(branch feat-a, task #${task.id} by agent-a\\) — edit something else, or wait until that work is merged`,
        ),
      );
      assert.doesNotMatch(allowed ?? '', /lock_conflict/, 'merged into main: the hold has ended');
      assert.equal(readFileSync(join(wtB, 'src/a.ts'), 'utf8'), `${A2}\n`, "B's edit went through after the merge");
      assert.doesNotMatch(warned ?? '', /lock_conflict/);
      assert.equal(readFileSync(join(wtB, 'src/b.ts'), 'utf8'), `${B2}\n`);
      const sent = JSON.stringify(fake.turns().at(-1)?.body ?? '');
      const line = /coord warning: src\/b\.ts in worktree [^"\\]*/.exec(sent)?.[0];
      t.diagnostic(`${client}: warning line the model read: ${JSON.stringify(line ?? null)}`);
      if (client === 'claude')
        assert.ok(line, 'Claude Code passes the warning (PreToolUse additionalContext) to the model');
    });
  }
});
