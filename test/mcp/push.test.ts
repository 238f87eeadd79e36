/** Push without busy-polling (SPEC §5): resources/updated for subscribers, claude/channel for Claude Code. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { mcpHarness, waitFor } from './harness.js';

describe('inbox push over an in-memory pair', () => {
  test('a subscriber to coord://inbox gets notifications/resources/updated when a task is posted for it', async () => {
    const h = await mcpHarness();
    const bob = await h.agent({ agent: 'bob' });
    const alice = await h.agent({ agent: 'alice' });
    const updates: string[] = [];
    bob.client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    await bob.client.subscribeResource({ uri: 'coord://inbox' });
    await alice.call('post_task', { title: 'for bob only', for: 'bob' });
    await waitFor(() => updates.length > 0, 'resources/updated');
    assert.deepEqual(updates, ['coord://inbox']);
    const read = await bob.client.readResource({ uri: 'coord://inbox' });
    assert.match(
      String(read.contents[0] && 'text' in read.contents[0] ? read.contents[0].text : ''),
      /alice>you: for bob only/,
    );
  });

  test('no update reaches a subscriber for a task private to another agent', async () => {
    const h = await mcpHarness();
    const bob = await h.agent({ agent: 'bob' });
    const alice = await h.agent({ agent: 'alice' });
    const updates: string[] = [];
    bob.client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    await bob.client.subscribeResource({ uri: 'coord://inbox' });
    await alice.call('post_task', { title: 'for carol', for: 'carol' });
    // A public task afterwards is a marker: once its update arrives, any update for carol's would have too.
    await alice.call('post_task', { title: 'public' });
    await waitFor(() => updates.length > 0, 'the public task update');
    assert.equal(updates.length, 1);
  });

  test('after unsubscribing, no more updates arrive', async () => {
    const h = await mcpHarness();
    const bob = await h.agent({ agent: 'bob' });
    const channel: string[] = [];
    const updates: string[] = [];
    bob.client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    await bob.client.subscribeResource({ uri: 'coord://inbox' });
    await bob.client.unsubscribeResource({ uri: 'coord://inbox' });
    const carol = await h.agent({ agent: 'carol' }, { capabilities: { experimental: { 'claude/channel': {} } } });
    carol.client.setNotificationHandler(
      'notifications/claude/channel',
      { params: z.object({ content: z.string() }).loose() },
      (p) => {
        channel.push(p.content);
      },
    );
    await carol.call('post_task', { title: 'x', for: 'bob' });
    await bob.call('post_task', { title: 'y', for: 'carol' });
    await waitFor(() => channel.length > 0, 'the marker on another session');
    assert.deepEqual(updates, []);
  });

  test('a client that declares claude/channel is told about new work for it in one line', async () => {
    const h = await mcpHarness();
    const claude = await h.agent({ agent: 'claude' }, { capabilities: { experimental: { 'claude/channel': {} } } });
    const cursor = await h.agent({ agent: 'cursor' });
    const news: { content: string; meta: Record<string, string> }[] = [];
    claude.client.setNotificationHandler(
      'notifications/claude/channel',
      { params: z.object({ content: z.string(), meta: z.record(z.string(), z.string()) }) },
      (p) => {
        news.push(p);
      },
    );
    const id = (await cursor.call('post_task', { title: 'Review the retry logic', kind: 'review', for: 'claude' })).data
      .task.id;
    await waitFor(() => news.length > 0, 'a channel event');
    assert.equal(
      news[0]?.content,
      `new task #${id} for you from cursor (review, p0): Review the retry logic — claim_task {"task_id":"${id}"} to take it`,
    );
    assert.deepEqual(news[0]?.meta, { event: 'task.created', task_id: id, board: 'default' });
  });

  test('a Claude Code session hears when its own claim is cancelled, and not about its own posts', async () => {
    const h = await mcpHarness();
    const claude = await h.agent({}, { name: 'claude-code' });
    const other = await h.agent({ agent: 'lead' });
    const news: string[] = [];
    claude.client.setNotificationHandler(
      'notifications/claude/channel',
      { params: z.object({ content: z.string() }).loose() },
      (p) => {
        news.push(p.content);
      },
    );
    const id = (await claude.call('post_task', { title: 'mine' })).data.task.id;
    await claude.call('claim_task', { task_id: id });
    await other.call('cancel_task', { task_id: id });
    await waitFor(() => news.length > 0, 'the cancel news');
    assert.deepEqual(news, [`#${id} was cancelled by lead — stop working on it`]);
  });

  test('the server declares the claude/channel capability and instructions a model can follow', async () => {
    const h = await mcpHarness();
    const a = await h.agent();
    assert.deepEqual(a.client.getServerCapabilities()?.experimental, { 'claude/channel': {} });
    assert.equal(a.client.getServerCapabilities()?.resources?.subscribe, true);
    assert.match(a.client.getInstructions() ?? '', /claim_task/);
  });
});
