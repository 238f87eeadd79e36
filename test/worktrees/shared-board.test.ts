/**
 * SPEC §5 across real processes: three work trees of one repository (main + two linked, made by
 * `git worktree add`) are one board — a task posted in one is claimable in the others, and a lock on
 * src/a.ts in one conflicts with src/a.ts in another, through the CLI and through `coord mcp` on stdio.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { COORD, childEnv, runProcess, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { type Repo, repoWithWorktrees } from './git-repo.js';

const [cmd, ...base] = COORD as [string, ...string[]];

describe('one board across the work trees of a repository', () => {
  let d: SpawnedDaemon;
  let repo: Repo;
  const env = () => childEnv({ COORD_STATE: d.stateDir, COORD_BOARD: '', COORD_AGENT: '' });
  const coord = (cwd: string, ...args: string[]) => runProcess(cmd, [...base, ...args], { cwd, env: env() });
  before(async () => {
    d = await spawnDaemon();
    repo = repoWithWorktrees(2);
  });
  after(async () => {
    await d.stop();
  });

  test('through the CLI: posted in the main tree, claimed from a linked one; a lock on src/a.ts in one linked tree refuses the other', async () => {
    const [one = '', two = ''] = repo.linked;
    const posted = await coord(repo.main, 'post', 'shared work', '--agent', 'poster', '--json');
    assert.equal(posted.code, 0, posted.stderr);
    const task = JSON.parse(posted.stdout).task as { id: string; board: string };
    const claimed = await coord(join(one, 'src'), 'claim', task.id, '--agent', 'worker', '--json');
    assert.equal(claimed.code, 0, claimed.stderr);
    assert.equal(JSON.parse(claimed.stdout).task.board, task.board);
    const mine = await coord(join(one, 'src'), 'lock', 'a.ts', '--agent', 'worker', '--json');
    assert.equal(mine.code, 0, mine.stderr);
    assert.deepEqual(JSON.parse(mine.stdout).resources, ['src/a.ts']);
    const theirs = await coord(two, 'lock', 'src/a.ts', '--agent', 'other');
    assert.equal(theirs.code, 2, theirs.stdout + theirs.stderr);
    assert.match(theirs.stdout + theirs.stderr, /src\/a\.ts.*worker/);
    await coord(one, 'unlock', JSON.parse(mine.stdout).lock_id);
  });

  test('through coord mcp: agents in two linked trees see one board, and their locks on src/a.ts conflict', async () => {
    const [one = '', two = ''] = repo.linked;
    const a = await mcpIn(one, 'alpha', env());
    const b = await mcpIn(two, 'beta', env());
    try {
      const posted = await call(a, 'post_task', { title: 'from linked tree one' });
      assert.equal(posted.isError, false, posted.text);
      const claimed = await call(b, 'claim_task', { task_id: posted.data.task.id });
      assert.equal(claimed.isError, false, claimed.text);
      const lock = await call(a, 'lock_files', { files: ['src/a.ts'] });
      assert.deepEqual(lock.data.resources, ['src/a.ts']);
      assert.match((await call(b, 'lock_files', { files: ['src/a.ts'] })).text, /^lock_conflict: .*held by alpha/);
      const abs = await call(b, 'lock_files', { files: [join(two, 'src', 'a.ts')] });
      assert.match(abs.text, /^lock_conflict: .*src\/a\.ts.*held by alpha/);
      const mainTree = await call(b, 'lock_files', { files: [join(repo.main, 'src', 'a.ts')] });
      assert.match(mainTree.text, /^lock_conflict: /, 'an absolute path into the main work tree is the same key');
    } finally {
      await a.client.close();
      await b.client.close();
    }
  });
});

interface Mcp {
  client: Client;
}

async function mcpIn(cwd: string, agent: string, env: NodeJS.ProcessEnv): Promise<Mcp> {
  const transport = new StdioClientTransport({
    command: cmd,
    args: [...base, 'mcp', '--agent', agent],
    cwd,
    env: env as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: agent, version: '1' });
  await client.connect(transport);
  return { client };
}

async function call(m: Mcp, name: string, args: Record<string, unknown>) {
  const res = (await m.client.callTool({ name, arguments: args })) as any;
  return { text: String(res.content?.[0]?.text ?? ''), isError: res.isError === true, data: res._meta?.['coord/data'] };
}
