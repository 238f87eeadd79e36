/** The MCP tools through the official SDK client over an in-memory pair (SPEC §5). */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { repoWithWorktrees } from '../worktrees/git-repo.js';
import { mcpHarness } from './harness.js';
import { SPEC_TOOLS } from './spec-tools.js';

describe('MCP tools over an in-memory pair', () => {
  test('tools/list shows every SPEC tool with a described object schema and no agent or board argument', async () => {
    const h = await mcpHarness();
    const a = await h.agent();
    const { tools } = await a.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...SPEC_TOOLS].sort());
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.ok((t.description ?? '').length > 30, `${t.name} has a description a model can follow`);
      assert.ok(!('agent' in (t.inputSchema.properties ?? {})), `${t.name} takes no agent`);
      assert.ok(!('board' in (t.inputSchema.properties ?? {})), `${t.name} takes no board`);
    }
    const claim = tools.find((t) => t.name === 'claim_task');
    assert.deepEqual(Object.keys(claim?.inputSchema.properties ?? {}).sort(), [
      'files',
      'lease_s',
      'task_id',
      'wait_s',
    ]);
    assert.deepEqual(claim?.inputSchema.required ?? [], []);
  });

  test('post_task answers the new id in one line, and the inbox lists the task', async () => {
    const h = await mcpHarness();
    const a = await h.agent({ agent: 'poster' });
    const posted = await a.call('post_task', { title: 'Fix the flaky test', kind: 'bug', priority: -1 });
    assert.equal(posted.isError, false);
    const id = posted.data.task.id;
    assert.match(posted.text, new RegExp(`^posted #${id} \\(bug, p-1\\) on board default`));
    const inbox = await a.call('inbox');
    assert.match(inbox.text, new RegExp(`#${id} bug p-1 \\d+s poster: Fix the flaky test`));
    assert.equal(inbox.data.tasks[0].id, id);
  });

  test('post_task with the same idempotency_key and payload returns the same task', async () => {
    const h = await mcpHarness();
    const a = await h.agent();
    const one = await a.call('post_task', { title: 'once', idempotency_key: 'k1' });
    const two = await a.call('post_task', { title: 'once', idempotency_key: 'k1' });
    assert.equal(two.data.task.id, one.data.task.id);
    assert.equal(two.data.created, false);
    const other = await a.call('post_task', { title: 'other', idempotency_key: 'k1' });
    assert.match(other.text, /^idempotency_conflict: /);
  });

  test('claim_task by id wins once; the loser reads text starting with claimed, naming the holder', async () => {
    const h = await mcpHarness();
    const alice = await h.agent({ agent: 'alice' });
    const bob = await h.agent({ agent: 'bob' });
    const id = (await alice.call('post_task', { title: 'one task' })).data.task.id;
    const won = await alice.call('claim_task', { task_id: id });
    assert.equal(won.isError, false);
    assert.match(
      won.text,
      new RegExp(`^claimed: #${id} one task\\nclaim_id c_\\S+ · fence 1 · lease until \\d\\d:\\d\\d:\\d\\d UTC`),
    );
    const lost = await bob.call('claim_task', { task_id: id });
    assert.equal(lost.isError, true);
    assert.match(
      lost.text,
      new RegExp(`^claimed: #${id} is held by alice until \\d\\d:\\d\\d:\\d\\d UTC — pick another task$`),
    );
    const again = await alice.call('claim_task', { task_id: `#${id}` });
    assert.equal(again.data.claim_id, won.data.claim_id, 're-claim by the holder is the same claim');
    assert.match(again.text, /^already yours: /);
  });

  test('claim_task without task_id takes the next task, and says so plainly when there is none', async () => {
    const h = await mcpHarness();
    const a = await h.agent({ agent: 'worker' });
    const none = await a.call('claim_task');
    assert.equal(none.isError, false);
    assert.match(none.text, /^nothing to claim on board default/);
    assert.deepEqual(none.data, { task: null });
    await a.call('post_task', { title: 'later', priority: 5 });
    const first = (await a.call('post_task', { title: 'first', priority: 1 })).data.task.id;
    const next = await a.call('claim_task', {});
    assert.equal(next.data.task.id, first);
  });

  test('claim_task with wait_s gets the task that is posted while it waits', async () => {
    const h = await mcpHarness();
    const waiter = await h.agent({ agent: 'waiter' });
    const poster = await h.agent({ agent: 'poster' });
    const waiting = waiter.call('claim_task', { wait_s: 30 });
    const id = (await poster.call('post_task', { title: 'arrives later' })).data.task.id;
    const got = await waiting;
    assert.equal(got.data.task.id, id);
    assert.equal(got.data.task.claimed_by, 'waiter');
  });

  test('heartbeat, submit_result and release_task use the claim_id this session remembers', async () => {
    const h = await mcpHarness();
    const a = await h.agent({ agent: 'a' });
    const id = (await a.call('post_task', { title: 't' })).data.task.id;
    await a.call('claim_task', { task_id: id, lease_s: 60 });
    const beat = await a.call('heartbeat', { task_id: id, lease_s: 120 });
    assert.match(beat.text, new RegExp(`^lease on #${id} extended until \\d\\d:\\d\\d:\\d\\d UTC \\(in 2m\\)`));
    const released = await a.call('release_task', { task_id: id });
    assert.equal(released.text, `released #${id}: it is queued again`);
    const stale = await a.call('heartbeat', { task_id: id });
    assert.match(stale.text, /^stale_claim: /);
  });

  test('a tool that needs a claim this session never made answers not_claimed and says what to do', async () => {
    const h = await mcpHarness();
    const a = await h.agent();
    const res = await a.call('heartbeat', { task_id: 'k3m9x2qa' });
    assert.equal(res.isError, true);
    assert.match(res.text, /^not_claimed: this session holds no claim on #k3m9x2qa — claim it with claim_task first/);
  });

  test('submit_result again with the same result is a replay; a different result is result_mismatch', async () => {
    const h = await mcpHarness();
    const a = await h.agent();
    const id = (await a.call('post_task', { title: 't' })).data.task.id;
    const { claim_id } = (await a.call('claim_task', { task_id: id })).data;
    const done = await a.call('submit_result', { task_id: id, status: 'completed', result: { pr: 12 } });
    assert.equal(
      done.text,
      `#${id} is completed — result recorded; its claim and any files locked with it are released`,
    );
    const replay = await a.call('submit_result', { task_id: id, claim_id, status: 'completed', result: { pr: 12 } });
    assert.equal(replay.isError, false);
    assert.equal(replay.data.replayed, true);
    assert.match(replay.text, /nothing changed \(a safe retry\)$/);
    const mismatch = await a.call('submit_result', { task_id: id, status: 'completed', result: { pr: 13 } });
    assert.equal(mismatch.isError, true);
    assert.match(mismatch.text, /^result_mismatch: .*never overwritten$/);
  });

  test('release_task with to hands the task to that agent only', async () => {
    const h = await mcpHarness();
    const a = await h.agent({ agent: 'alice' });
    const b = await h.agent({ agent: 'bob' });
    const c = await h.agent({ agent: 'carol' });
    const id = (await a.call('post_task', { title: 'review me' })).data.task.id;
    await a.call('claim_task', { task_id: id });
    const handed = await a.call('release_task', { task_id: id, to: 'bob' });
    assert.equal(handed.text, `handed #${id} to bob: only that agent may claim it now`);
    assert.match((await c.call('claim_task', { task_id: id })).text, /^not_found: /);
    assert.match((await b.call('inbox')).text, new RegExp(`#${id} task p0 \\d+s alice>you: review me`));
    assert.equal((await b.call('claim_task', { task_id: id })).data.task.claimed_by, 'bob');
  });

  test('cancel_task fences the holder off: its next heartbeat answers cancelled', async () => {
    const h = await mcpHarness();
    const owner = await h.agent({ agent: 'owner' });
    const worker = await h.agent({ agent: 'worker' });
    const id = (await owner.call('post_task', { title: 'not needed after all' })).data.task.id;
    await worker.call('claim_task', { task_id: id });
    const cancelled = await owner.call('cancel_task', { task_id: id, reason: 'duplicate' });
    assert.equal(cancelled.text, `#${id} is cancelled; any holder is fenced off`);
    assert.match((await worker.call('heartbeat', { task_id: id })).text, /^cancelled: .* — stop working on it$/);
  });

  test('upload_artifact: the same id and bytes again is fine, other bytes answer artifact_conflict', async () => {
    const h = await mcpHarness();
    const a = await h.agent();
    const id = (await a.call('post_task', { title: 't' })).data.task.id;
    await a.call('claim_task', { task_id: id });
    const text = await a.call('upload_artifact', { task_id: id, artifact_id: 'log.txt', content: 'all green\n' });
    assert.match(text.text, /^stored artifact log\.txt on #\S+ \(10 bytes, sha256 [0-9a-f]{12}…\)$/);
    assert.equal(text.data.artifact.content_type, 'text/plain; charset=utf-8');
    const again = await a.call('upload_artifact', { task_id: id, artifact_id: 'log.txt', content: 'all green\n' });
    assert.equal(again.isError, false);
    assert.match(again.text, /already stored with these bytes/);
    const other = await a.call('upload_artifact', { task_id: id, artifact_id: 'log.txt', content: 'red\n' });
    assert.equal(other.isError, true);
    assert.match(other.text, /^artifact_conflict: /);
    const bin = await a.call('upload_artifact', {
      task_id: id,
      artifact_id: 'blob.bin',
      content: Buffer.from([0, 1, 2, 255]).toString('base64'),
      encoding: 'base64',
    });
    assert.equal(bin.data.artifact.size, 4);
    const stored = await h.store.getArtifact(id, 'blob.bin');
    assert.deepEqual([...(stored?.bytes ?? [])], [0, 1, 2, 255]);
  });

  test('lock_files takes absolute paths inside the repository as relative ones and refuses paths outside it', async () => {
    const h = await mcpHarness();
    const a = await h.agent({ agent: 'a', root: '/repo' });
    const locked = await a.call('lock_files', { files: ['/repo/src/app.ts', 'docs/', './README.md'] });
    assert.equal(locked.isError, false, locked.text);
    assert.deepEqual(locked.data.resources, ['README.md', 'docs/', 'src/app.ts']);
    assert.match(
      locked.text,
      /^locked README\.md, docs\/, src\/app\.ts until .* · lock_id \S+ — unlock_files when done$/,
    );
    const outside = await a.call('lock_files', { files: ['/etc/passwd'] });
    assert.match(outside.text, /^invalid_request: cannot use "\/etc\/passwd": it is outside the repository \/repo/);
    const climbing = await a.call('lock_files', { files: ['../other-repo/x.ts'] });
    assert.match(climbing.text, /^invalid_request: /);
  });

  test('lock_files keys a file by what it is on disk: a symlink is its target, NFD is NFC, and a nested repository’s file is refused naming its board', async () => {
    const h = await mcpHarness();
    const { main } = repoWithWorktrees(0);
    symlinkSync(join(main, 'src', 'a.ts'), join(main, 'a-link.ts'));
    mkdirSync(join(main, 'nested'));
    execFileSync('git', ['init', '-q'], { cwd: join(main, 'nested') });
    const a = await h.agent({ agent: 'a', root: main });
    const locked = await a.call('lock_files', { files: ['a-link.ts', `${main}/src/cafe\u0301.ts`] });
    assert.equal(locked.isError, false, locked.text);
    assert.deepEqual(locked.data.resources, ['src/a.ts', 'src/caf\u00e9.ts']);
    for (const nested of ['nested/x.ts', join(main, 'nested', 'x.ts')]) {
      const refused = await a.call('lock_files', { files: [nested] });
      assert.match(
        refused.text,
        /^invalid_request: .*another repository \(.*nested, board nested-[0-9a-f]{6}\)/,
        nested,
      );
    }
  });

  test('lock_files conflicts name the holder, and unlock_files frees the files', async () => {
    const h = await mcpHarness();
    const a = await h.agent({ agent: 'alice' });
    const b = await h.agent({ agent: 'bob' });
    const lock = (await a.call('lock_files', { files: ['src/'] })).data;
    const conflict = await b.call('lock_files', { files: ['src/app.ts'] });
    assert.equal(conflict.isError, true);
    assert.match(conflict.text, /^lock_conflict: src\/app\.ts is held by alice \(as src\/\) until \d\d:\d\d:\d\d UTC/);
    const unlocked = await a.call('unlock_files', { lock_id: lock.lock_id });
    assert.equal(unlocked.text, `released lock ${lock.lock_id}`);
    assert.equal((await b.call('lock_files', { files: ['src/app.ts'] })).isError, false);
  });

  test('claim_task with files locks them together with the claim; a conflict claims nothing', async () => {
    const h = await mcpHarness();
    const a = await h.agent({ agent: 'alice', root: '/repo' });
    const b = await h.agent({ agent: 'bob', root: '/repo' });
    const one = (await a.call('post_task', { title: 'one' })).data.task.id;
    const two = (await a.call('post_task', { title: 'two' })).data.task.id;
    const claimed = await a.call('claim_task', { task_id: one, files: ['/repo/src/a.ts'] });
    assert.deepEqual(claimed.data.lock.resources, ['src/a.ts']);
    assert.match(claimed.text, /\nlocked with it: src\/a\.ts\n/);
    const clash = await b.call('claim_task', { task_id: two, files: ['src/a.ts'] });
    assert.match(clash.text, /^lock_conflict: src\/a\.ts is held by alice/);
    assert.equal((await b.call('show_task', { task_id: two })).data.task.state, 'queued');
    const noId = await b.call('claim_task', { files: ['src/b.ts'] });
    assert.match(noId.text, /^invalid_request: files need a task_id/);
  });

  test('bad arguments answer invalid_request naming the field, not a protocol error', async () => {
    const h = await mcpHarness();
    const a = await h.agent();
    const res = await a.call('post_task', { title: '', priority: 'high' });
    assert.equal(res.isError, true);
    assert.match(res.text, /^invalid_request: invalid input: .*title: .*priority: /);
    assert.deepEqual(
      res.data.error.issues.map((i: { path: string }) => i.path),
      ['title', 'priority'],
    );
  });

  test('show_task shows the body and the holder; private tasks of others do not exist', async () => {
    const h = await mcpHarness();
    const a = await h.agent({ agent: 'alice' });
    const b = await h.agent({ agent: 'bob' });
    const id = (await a.call('post_task', { title: 'with a body', body: 'Line one.\nLine two.' })).data.task.id;
    await b.call('claim_task', { task_id: id });
    const shown = await a.call('show_task', { task_id: id });
    assert.match(
      shown.text,
      new RegExp(`^#${id} \\[claimed\\] task p0 · by alice · attempts 1\\ntitle: with a body\\nheld by bob until `),
    );
    assert.match(shown.text, /\nbody:\nLine one\.\nLine two\.$/);
    const secret = (await a.call('post_task', { title: 'for carol', for: 'carol' })).data.task.id;
    assert.match((await b.call('show_task', { task_id: secret })).text, /^not_found: /);
  });

  test('who lists the agents on the board and what each holds', async () => {
    const h = await mcpHarness();
    const a = await h.agent({ agent: 'alice' });
    const b = await h.agent({ agent: 'bob' });
    const id = (await a.call('post_task', { title: 't' })).data.task.id;
    await b.call('claim_task', { task_id: id });
    await b.call('lock_files', { files: ['src/x.ts'] });
    const who = await a.call('who');
    assert.match(who.text, new RegExp(`^bob · claims #${id} · locks src/x\\.ts · seen \\d+s ago$`, 'm'));
    assert.match(who.text, /^alice \(you\) · holds nothing · seen \d+s ago$/m);
  });

  test('the agent is the MCP client name plus a short suffix, fixed for the session, unless one is given', async () => {
    const h = await mcpHarness();
    const derived = await h.agent({}, { name: 'claude-code' });
    const first = (await derived.call('inbox')).data.agent;
    assert.match(first, /^claude-code#[0-9a-f]{4}$/);
    assert.equal((await derived.call('inbox')).data.agent, first);
    const spaced = await h.agent({}, { name: 'Some Client 2.0' });
    assert.match((await spaced.call('inbox')).data.agent, /^Some-Client-2\.0#[0-9a-f]{4}$/);
    const named = await h.agent({ agent: 'cursor' }, { name: 'cursor-vscode' });
    assert.equal((await named.call('inbox')).data.agent, 'cursor');
  });
});
