/**
 * SPEC §17 "What the model receives, in every client": a tool result reaches the model as coord's
 * short text. Gemini CLI and Qwen Code show their model a failing tool's whole result object inside an
 * error line of their own (`failing-object`): coord sends them a failure unflagged, its text alone
 * reaching the model and its data for programs kept in `_meta`. Cline shows every result whole
 * (`whole-json`): coord leaves `_meta` out. Every other client, and every program, gets a flagged
 * failure with its data.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { spawnDaemon } from '../support/daemon.js';
import { mcpHarness } from './harness.js';

const LOST_CLAIM_BUDGET = 300;

async function lostClaim(wrapper?: 'failing-object' | 'whole-json' | 'text' | 'structured') {
  const h = await mcpHarness();
  const alice = await h.agent({ agent: 'alice' });
  const id = (await alice.call('post_task', { title: 'one' })).data.task.id;
  await alice.call('claim_task', { task_id: id });
  const bob = await h.agent({ agent: 'bob' }, {}, wrapper ? { wrapper } : {});
  const lost = await bob.call('claim_task', { task_id: id });
  const posted = await bob.call('post_task', { title: 'two' });
  return { lost, posted };
}

describe('what a tool result carries, by how the client shows it', () => {
  test('for Gemini CLI and Qwen Code (failing-object) a lost claim is not flagged isError, so their model reads the text alone, starting with its code and naming the holder; programs still get the error in _meta', async () => {
    const { lost, posted } = await lostClaim('failing-object');
    assert.notEqual(lost.isError, true);
    assert.match(lost.text, /^claimed: #\w+ is held by alice until /);
    assert.ok(Buffer.byteLength(lost.text) <= LOST_CLAIM_BUDGET, lost.text);
    assert.equal(lost.data.error.code, 'claimed');
    assert.equal(lost.data.error.holder, 'alice');
    assert.ok(posted.data.task.id, 'a success still carries the data for programs');
  });

  test('for Cline (whole-json) no result carries _meta, failing or not', async () => {
    const { lost, posted } = await lostClaim('whole-json');
    assert.equal(lost.raw._meta, undefined);
    assert.equal(posted.raw._meta, undefined);
    assert.match(posted.text, /^posted #/);
  });

  test('for every other client, and programs, a failure carries the error for programs in _meta', async () => {
    for (const wrapper of [undefined, 'text', 'structured'] as const) {
      const { lost } = await lostClaim(wrapper);
      assert.equal(lost.data.error.code, 'claimed', String(wrapper));
      assert.equal(lost.data.error.holder, 'alice', String(wrapper));
    }
  });

  test('over HTTP the client kind from Coord-Client picks its profile: gemini gets the failure unflagged, an unnamed program flagged', async () => {
    const daemon = await spawnDaemon();
    try {
      const open = async (agent: string, headers: Record<string, string> = {}) => {
        const transport = new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp?board=shape&agent=${agent}`), {
          requestInit: { headers: { authorization: `Bearer ${daemon.token}`, ...headers } },
        });
        const client = new Client({ name: 'x', version: '1' });
        await client.connect(transport);
        return { client, transport };
      };
      const alice = await open('alice');
      const posted = (await alice.client.callTool({ name: 'post_task', arguments: { title: 'one' } })) as any;
      const id = posted._meta['coord/data'].task.id;
      await alice.client.callTool({ name: 'claim_task', arguments: { task_id: id } });
      const gemini = await open('gem', { 'coord-client': 'gemini' });
      const program = await open('prog');
      const a = (await gemini.client.callTool({ name: 'claim_task', arguments: { task_id: id } })) as any;
      const b = (await program.client.callTool({ name: 'claim_task', arguments: { task_id: id } })) as any;
      assert.notEqual(a.isError, true);
      assert.equal(a._meta['coord/data'].error.holder, 'alice');
      assert.equal(b.isError, true);
      assert.equal(b._meta['coord/data'].error.holder, 'alice');
      for (const c of [alice, gemini, program]) {
        await c.transport.terminateSession();
        await c.client.close();
      }
    } finally {
      await daemon.stop();
    }
  });
});
