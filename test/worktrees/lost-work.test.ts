/**
 * SPEC §14 "No lost work", for real: an agent's `coord mcp` (its session) claims a task with files from a
 * linked work tree, commits and leaves an edit uncommitted, then is killed with SIGKILL. The daemon ends
 * the session (rule 13); its claim's lock stays as a hold of that work tree, a note on the task says what
 * was left where, and the next claimant's claim answer carries that line. Nothing in the work tree moves.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { runCoord } from '../hooks/run-hook.js';
import { COORD, childEnv, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { type Repo, repoWithWorktrees } from './git-repo.js';

const [cmd, ...base] = COORD as [string, ...string[]];
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' });

describe('work left behind by a killed session (SPEC §14)', () => {
  let d: SpawnedDaemon;
  let repo: Repo;
  let board: string;
  before(async () => {
    d = await spawnDaemon();
    repo = repoWithWorktrees(1);
    board = boardForDir(repo.main) ?? '';
  });
  after(async () => {
    await d.stop();
  });

  test('kill -9 of the session mid-work: the hold stays, the task gets a note naming commits and uncommitted paths, the next claim carries it, and the work tree is untouched', async () => {
    const tree = repo.linked[0] ?? '';
    const transport = new StdioClientTransport({
      command: cmd,
      args: [...base, 'mcp', '--agent', 'doomed'],
      cwd: tree,
      env: childEnv({ COORD_STATE: d.stateDir, COORD_BOARD: '', COORD_AGENT: '' }) as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'doomed', version: '1' });
    await client.connect(transport);
    const posted = (await client.callTool({ name: 'post_task', arguments: { title: 'parse dates' } })) as any;
    const id = posted._meta['coord/data'].task.id as string;
    const claimed = (await client.callTool({
      name: 'claim_task',
      arguments: { task_id: id, files: ['src/a.ts'] },
    })) as any;
    assert.notEqual(claimed.isError, true, claimed.content?.[0]?.text);

    appendFileSync(join(tree, 'src/a.ts'), 'export const dates = 1;\n');
    git(tree, 'commit', '-qam', 'parse dates');
    appendFileSync(join(tree, 'src/a.ts'), 'export const more = 2;\n');
    const before = readFileSync(join(tree, 'src/a.ts'), 'utf8');
    const head = git(tree, 'rev-parse', 'HEAD').trim();

    process.kill(transport.pid ?? 0, 'SIGKILL');
    const note = await waitFor(async () => {
      const t = (await (await d.fetch(`/v1/tasks/${id}`)).json()) as any;
      return t.task.notes?.find((n: { text: string }) => n.text.startsWith('work left in '));
    }, 'the work-left note');
    assert.match(
      note.text,
      new RegExp(
        `^work left in \\.\\./project-wt1 on branch wt1: 1 commit since the claim \\(${head.slice(0, 6)} "parse dates"\\), uncommitted: src/a\\.ts$`,
      ),
    );
    const locks = ((await (await d.fetch(`/v1/locks?board=${board}`)).json()) as any).locks;
    const hold = locks.find((l: any) => l.resources.includes('src/a.ts'));
    assert.ok(hold?.hold, JSON.stringify(locks));
    assert.equal(hold.worktree, tree);
    assert.equal(hold.task_id, id);

    const next = await runCoord(['claim', id, '--agent', 'heir', '--json', '--state', d.stateDir], { cwd: repo.main });
    assert.equal(next.code, 0, next.stderr);
    assert.equal(JSON.parse(next.stdout).work_left, note.text);
    // The CLI's text answer carries the same line (released again by the heir, claimed by a third agent).
    const heirClaim = JSON.parse(next.stdout).claim_id;
    const back = await runCoord(['release', id, '--claim', heirClaim, '--state', d.stateDir], {
      cwd: repo.main,
    });
    assert.equal(back.code, 0, back.stderr);
    const third = await runCoord(['claim', id, '--agent', 'third', '--state', d.stateDir], { cwd: repo.main });
    assert.equal(third.code, 0, third.stderr);
    assert.ok(third.stdout.includes(note.text), third.stdout);

    assert.equal(readFileSync(join(tree, 'src/a.ts'), 'utf8'), before, 'coord never touches the work tree');
    assert.equal(git(tree, 'rev-parse', 'HEAD').trim(), head);
    await client.close().catch(() => {});
  });
});
