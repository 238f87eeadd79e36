/**
 * SPEC §5: what the real clients need from coord's tools. Codex refuses, headless, any tool without
 * annotations; Claude Code and Codex hand the model JSON.stringify(structuredContent) instead of the text
 * when a result has both; clients that rewrite schemas drop properties without a JSON type.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mcpHarness } from './harness.js';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** What Claude Code and Codex give the model for a tool result: the structured content when there is one. */
const modelReads = (res: { content?: { text?: string }[]; structuredContent?: unknown }): string =>
  res.structuredContent !== undefined
    ? JSON.stringify(res.structuredContent)
    : (res.content ?? []).map((c) => c.text ?? '').join('\n');

describe('MCP as the real clients read it', () => {
  test('every tool carries annotations: reads are readOnly, the rest neither destructive nor open-world', async () => {
    const h = await mcpHarness();
    const { tools } = await (await h.agent()).client.listTools();
    const reads = new Set(['inbox', 'show_task', 'who', 'list_messages']);
    for (const t of tools) {
      const a = t.annotations ?? {};
      if (reads.has(t.name)) assert.equal(a.readOnlyHint, true, t.name);
      else {
        assert.equal(a.destructiveHint, false, `${t.name} destructiveHint`);
        assert.equal(a.openWorldHint, false, `${t.name} openWorldHint`);
      }
    }
  });

  test('every property of every input schema has a JSON type, submit_result.result included', async () => {
    const h = await mcpHarness();
    const { tools } = await (await h.agent()).client.listTools();
    for (const t of tools) {
      for (const [name, prop] of Object.entries(t.inputSchema.properties ?? {})) {
        assert.ok((prop as { type?: unknown }).type !== undefined, `${t.name}.${name} has no type`);
      }
    }
    const submit = tools.find((t) => t.name === 'submit_result');
    assert.equal((submit?.inputSchema.properties?.result as { type?: unknown } | undefined)?.type, 'object');
  });

  test('tool results carry no structuredContent, so the model reads the short text: empty inbox ≤ 64 bytes, a task line ≤ 140', async () => {
    const h = await mcpHarness();
    const a = await h.agent({ agent: 'reader' });
    const empty = (await a.client.callTool({ name: 'inbox', arguments: {} })) as never;
    const emptyText = modelReads(empty);
    assert.ok(bytes(emptyText) <= 64, `the model reads ${bytes(emptyText)} bytes: ${emptyText}`);
    const none = modelReads((await a.client.callTool({ name: 'claim_task', arguments: {} })) as never);
    assert.doesNotMatch(none, /^\{/, 'an empty claim reads as text, not {"task":null}');
    await a.call('post_task', {
      title: 'Make the retry loop back off exponentially and log every giveup'.padEnd(80, '!'),
    });
    const one = modelReads((await a.client.callTool({ name: 'inbox', arguments: {} })) as never);
    const [, line = ''] = one.split('\n');
    assert.ok(bytes(line) <= 140, `${bytes(line)} bytes: ${line}`);
    assert.doesNotMatch(one, /"task"|"claims"/);
    const failed = (await a.client.callTool({ name: 'show_task', arguments: { task_id: 'nope' } })) as never;
    assert.match(modelReads(failed), /^not_found: /);
    console.log(
      `model reads: empty inbox ${bytes(emptyText)} bytes, one-task inbox ${bytes(one)} bytes (line ${bytes(line)})`,
    );
  });
});
