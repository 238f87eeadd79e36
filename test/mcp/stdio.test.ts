/** `coord mcp` as Claude Code, Cursor and Codex launch it: real processes, real stdio, a daemon it starts itself. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { tempDir } from '../support/ctx.js';
import { ROOT, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from './harness.js';
import { SPEC_TOOLS } from './spec-tools.js';
import { alive, daemonOf, startMcp, stopDaemon, waitForLog } from './stdio-support.js';

describe('coord mcp over stdio', () => {
  test('a full round of tools through two coord mcp processes and the daemon the first one started', async () => {
    const state = tempDir('coord-mcp-');
    const alpha = await startMcp(state, { args: ['--agent', 'alpha'] });
    const beta = await startMcp(state, { env: { COORD_AGENT: 'beta' } });
    try {
      assert.equal((await alpha.client.listTools()).tools.length, SPEC_TOOLS.length);
      const id = (await alpha.call('post_task', { title: 'ship it' })).data.task.id;
      const claim = await alpha.call('claim_task', { task_id: id });
      assert.match(claim.text, new RegExp(`^claimed: #${id} ship it`));
      assert.match((await beta.call('claim_task', { task_id: id })).text, /^claimed: .* is held by alpha until /);
      assert.match((await alpha.call('heartbeat', { task_id: id })).text, /^lease on #\S+ extended until /);
      const up = { task_id: id, artifact_id: 'notes.md', content: '# done\n' };
      assert.equal((await alpha.call('upload_artifact', up)).isError, false);
      assert.equal((await alpha.call('upload_artifact', up)).isError, false);
      assert.match((await alpha.call('upload_artifact', { ...up, content: 'other' })).text, /^artifact_conflict: /);
      const abs = join(ROOT, 'src/main.ts');
      const lock = await alpha.call('lock_files', { files: [abs] });
      assert.deepEqual(lock.data.resources, ['src/main.ts']);
      assert.match(
        (await beta.call('lock_files', { files: ['src/main.ts'] })).text,
        /^lock_conflict: .* held by alpha/,
      );
      assert.equal((await alpha.call('unlock_files', { lock_id: lock.data.lock_id })).isError, false);
      assert.equal((await alpha.call('release_task', { task_id: id, to: 'beta' })).isError, false);
      const handed = await beta.call('claim_task', { task_id: id });
      assert.equal(handed.data.task.claimed_by, 'beta');
      const result = { status: 'completed', result: { ok: true } };
      assert.match((await beta.call('submit_result', { task_id: id, ...result })).text, /is completed/);
      assert.equal((await beta.call('submit_result', { task_id: id, ...result })).data.replayed, true);
      const mismatch = await beta.call('submit_result', { task_id: id, status: 'failed', result: null });
      assert.match(mismatch.text, /^result_mismatch: /);
      const other = (await beta.call('post_task', { title: 'drop me' })).data.task.id;
      assert.match((await alpha.call('cancel_task', { task_id: other })).text, /is cancelled/);
      assert.equal(alpha.stderr().match(/starting a coord daemon/g)?.length ?? 0, 1);
      assert.equal(beta.stderr().match(/starting a coord daemon/g)?.length ?? 0, 0);
    } finally {
      await alpha.close();
      await beta.close();
      await stopDaemon(state);
    }
  });

  test('eight coord mcp started at once on a fresh state directory: one daemon starts, one claim wins, seven read claimed', async () => {
    const state = tempDir('coord-mcp-8-');
    const agents = await Promise.all(
      Array.from({ length: 8 }, (_, i) => startMcp(state, { args: ['--agent', `agent-${i}`] })),
    );
    try {
      const starts = agents.map((a) => a.stderr().match(/starting a coord daemon/g)?.length ?? 0);
      assert.equal(
        starts.reduce((x, y) => x + y, 0),
        1,
        'exactly one coord mcp launched a daemon',
      );
      const log = readFileSync(join(state, 'daemon.log'), 'utf8');
      assert.equal(log.match(/daemon on http:\/\/127\.0\.0\.1:\d+/g)?.length, 1, 'exactly one daemon served');
      const id = (await agents[0]!.call('post_task', { title: 'the one task' })).data.task.id;
      const answers = await Promise.all(agents.map((a) => a.call('claim_task', { task_id: id })));
      const winners = answers.filter((r) => !r.isError);
      assert.equal(winners.length, 1);
      const losers = answers.filter((r) => r.isError);
      assert.equal(losers.length, 7);
      for (const l of losers) assert.match(l.text, /^claimed: /);
      answers.forEach((r, i) => {
        console.log(`agent-${i}: ${r.text.split('\n')[0]}`);
      });
    } finally {
      await Promise.all(agents.map((a) => a.close()));
      await stopDaemon(state);
    }
  });

  for (const how of ['exits cleanly', 'is killed'] as const) {
    test(`a lock taken through coord mcp is freed at once when that process ${how}, though its lease was minutes`, async () => {
      const state = tempDir('coord-mcp-lock-');
      const holder = await startMcp(state, { args: ['--agent', 'holder'] });
      try {
        const lock = await holder.call('lock_files', { files: ['src/app.ts'], lease_s: 600 });
        assert.equal(lock.isError, false, lock.text);
        const daemon = daemonOf(state);
        const held = async () => ((await daemon.fetch('/v1/locks?board=stdio-test')).locks as unknown[]).length;
        assert.equal(await held(), 1);
        const t0 = Date.now();
        if (how === 'is killed') process.kill(holder.pid, 'SIGKILL');
        else await holder.close();
        await waitFor(() => !alive(holder.pid), 'coord mcp to exit');
        await waitFor(async () => (await held()) === 0, 'the lock to be freed');
        console.log(
          `lock freed ${Date.now() - t0} ms after coord mcp ${how === 'is killed' ? 'was killed' : 'exited'}`,
        );
      } finally {
        await holder.close().catch(() => {});
        await stopDaemon(state);
      }
    });
  }

  test('push reaches agents through coord mcp: resources/updated for subscribers, claude/channel for Claude Code', async () => {
    const state = tempDir('coord-mcp-push-');
    const claude = await startMcp(state, { args: ['--agent', 'claude'], name: 'claude-code' });
    const cursor = await startMcp(state, { args: ['--agent', 'cursor'], name: 'cursor' });
    try {
      const updates: string[] = [];
      const news: string[] = [];
      cursor.client.setNotificationHandler('notifications/resources/updated', (n) => {
        updates.push(n.params.uri);
      });
      claude.client.setNotificationHandler(
        'notifications/claude/channel',
        { params: z.object({ content: z.string() }).loose() },
        (p) => {
          news.push(p.content);
        },
      );
      await cursor.client.subscribeResource({ uri: 'coord://inbox' });
      const forClaude = (await cursor.call('post_task', { title: 'review my change', for: 'claude' })).data.task.id;
      await waitFor(() => news.length > 0, 'claude/channel news');
      assert.match(news[0] ?? '', new RegExp(`^new task #${forClaude} for you from cursor`));
      await claude.call('post_task', { title: 'for cursor', for: 'cursor' });
      await waitFor(() => updates.length > 0, 'resources/updated');
    } finally {
      await claude.close();
      await cursor.close();
      await stopDaemon(state);
    }
  });

  test('an idle coord mcp reconnects by itself once a daemon runs again, so push resumes without a call', async () => {
    const state = tempDir('coord-mcp-revive-');
    const agent = await startMcp(state, { args: ['--agent', 'idle'] });
    const updates: string[] = [];
    agent.client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    let second: SpawnedDaemon | undefined;
    try {
      await agent.client.subscribeResource({ uri: 'coord://inbox' });
      await stopDaemon(state, 'SIGKILL');
      await waitForLog(agent, 'notification stream ended');
      assert.equal(agent.stderr().match(/starting a coord daemon/g)?.length, 1, 'an idle bridge starts no daemon');
      second = await spawnDaemon({ stateDir: state });
      await waitForLog(agent, 'reconnected to the coord daemon');
      const res = await second.fetch('/v1/tasks', {
        method: 'POST',
        json: { title: 'for the idle one', agent: 'cli', board: 'stdio-test' },
      });
      assert.equal(res.status, 201);
      await waitFor(() => updates.length > 0, 'resources/updated after the reconnect');
    } finally {
      await agent.close();
      await second?.stop();
    }
  });

  test('coord mcp survives its daemon dying: the next call starts a new daemon, and subscriptions carry over', async () => {
    const state = tempDir('coord-mcp-restart-');
    const agent = await startMcp(state, { name: 'claude-code' });
    const updates: string[] = [];
    agent.client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    try {
      await agent.client.subscribeResource({ uri: 'coord://inbox' });
      const id = (await agent.call('post_task', { title: 'before' })).data.task.id;
      const claim = await agent.call('claim_task', { task_id: id });
      assert.match(claim.data.task.claimed_by, /^claude-code#[0-9a-f]{4}$/);
      const first = daemonOf(state).pid;
      await stopDaemon(state, 'SIGKILL');
      const after = await agent.call('inbox');
      assert.equal(after.isError, false, `${after.text}\n${agent.stderr()}`);
      assert.match(after.text, /before/);
      assert.equal(after.data.agent, claim.data.task.claimed_by, 'the same agent name after the restart');
      const again = await agent.call('claim_task', { task_id: id });
      assert.equal(again.data.claim_id, claim.data.claim_id, 'so re-claiming recovers the same claim');
      const second = daemonOf(state);
      assert.notEqual(second.pid, first);
      updates.length = 0;
      const res = await fetch(`${second.url}/v1/tasks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${second.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'after the restart', agent: 'cli', board: 'stdio-test' }),
      });
      assert.equal(res.status, 201);
      await waitFor(() => updates.length > 0, 'resources/updated from the new daemon');
    } finally {
      await agent.close();
      await stopDaemon(state);
    }
  });
});
