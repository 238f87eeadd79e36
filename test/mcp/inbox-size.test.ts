/** SPEC §6: the inbox is read into a model's context on every check, so its size is a budget. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mcpHarness } from './harness.js';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

test('over MCP an empty inbox is at most 64 bytes and each task line at most 140 bytes for an 80-char title', async () => {
  const h = await mcpHarness();
  const me = 'claude-code#a1f3';
  const reader = await h.agent({ agent: me });
  const empty = (await reader.call('inbox')).text;
  assert.ok(bytes(empty) <= 64, `empty inbox is ${bytes(empty)} bytes: ${empty}`);

  // Worst cases the line format allows: long kind, author and title (all cut), extreme priority, private.
  const poster = await h.agent({ agent: `a-very-long-agent-name-${'x'.repeat(40)}` });
  const title = 'Make the retry loop in the claim path back off exponentially and log every giveup'.padEnd(200, '!');
  for (let i = 0; i < 3; i++) {
    await poster.call('post_task', { title, kind: 'investigation-followup', priority: -1000, for: me });
    await poster.call('post_task', { title, kind: 'investigation-followup', priority: 1000 });
  }
  const mine = (await poster.call('post_task', { title, kind: 'investigation-followup', priority: -1000, for: me }))
    .data.task.id;
  await reader.call('claim_task', { task_id: mine, lease_s: 86_400 });
  h.clock.advance(23 * 3600_000 + 59 * 60_000);

  const inbox = (await reader.call('inbox')).text;
  const [header, ...lines] = inbox.split('\n');
  assert.equal(lines.length, 7);
  const sizes = lines.map(bytes);
  for (const line of lines) assert.ok(bytes(line) <= 140, `${bytes(line)} bytes: ${line}`);
  console.log(`empty inbox: ${bytes(empty)} bytes (${JSON.stringify(empty)})`);
  console.log(
    `header: ${bytes(header ?? '')} bytes; task lines: ${sizes.join(', ')} bytes (max ${Math.max(...sizes)})`,
  );
  console.log(inbox);
});
