/** `coord note`, `send`, `ack`, `messages` and `release --note` against a real daemon (SPEC §12). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect } from '../../src/client/daemon-client.js';
import { pendingMessageLines } from '../../src/client/pending-messages.js';
import { runCli, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';

describe('the coord CLI: notes and messages', () => {
  let d: SpawnedDaemon;
  const env = (agent: string) => ({ COORD_STATE: d.stateDir, COORD_BOARD: 'cli-msgs', COORD_AGENT: agent });
  before(async () => {
    d = await spawnDaemon();
  });
  after(async () => {
    await d.stop();
  });
  const json = async (agent: string, args: string[]) => {
    const r = await runCli([...args, '--json'], env(agent));
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };

  test('a handoff with a note, then a message with a receipt: send, messages, ack, messages --sent', async () => {
    const { task } = await json('alice', ['post', 'port the parser']);
    const { claim_id } = await json('alice', ['claim', task.id]);
    await json('alice', [
      'release',
      task.id,
      '--claim',
      claim_id,
      '--to',
      'bob',
      '--note',
      'lexer done; parser half way',
    ]);
    await json('bob', ['note', task.id, 'taking it']);
    const shown = await runCli(['show', task.id], env('bob'));
    assert.match(shown.stdout, /notes \(2\):\n {2}\S+ alice: lexer done; parser half way\n {2}\S+ bob: taking it/);

    const sent = await runCli(
      ['send', 'bob', 'tests for the parser are on main', '--ack', '--task', task.id],
      env('alice'),
    );
    assert.equal(sent.code, 0, sent.stderr);
    const id = /^sent (m\w+) to bob$/m.exec(sent.stdout)?.[1] ?? '';
    assert.match(sent.stdout, /bob: not delivered yet/);
    const mine = await runCli(['messages'], env('bob'));
    assert.match(
      mine.stdout,
      new RegExp(`^msg ${id} from alice \\d+s re #${task.id}, ack: tests for the parser are on main$`, 'm'),
    );
    const receipt = await runCli(['messages', '--sent'], env('alice'));
    assert.match(receipt.stdout, /bob: delivered \S+ via inbox/);
    assert.equal((await runCli(['ack', id], env('bob'))).stdout, `acknowledged ${id}\n`);
    assert.equal((await runCli(['ack', id], env('bob'))).stdout, `${id} was already acknowledged\n`);
    const acked = await json('alice', ['messages', '--sent']);
    assert.ok(acked.messages[0].receipts[0].acked_at);
    const other = await runCli(['ack', id], env('mallory'));
    assert.equal(other.code, 1);
    assert.match(other.stderr, /^coord: not_found: no message/);
  });

  test('the hooks’ get-and-mark shows a message once to the stop hook and every unacknowledged one to prime', async () => {
    const sent = await json('alice', ['send', 'hooked', 'stop here', '--ack']);
    const client = connect(d.stateDir);
    const q = { agent: 'hooked', board: 'cli-msgs' };
    const stop = await pendingMessageLines(client, { ...q, via: 'stop' });
    assert.deepEqual(
      stop.lines.map((l) => l.replace(/ \d+s,/, ',')),
      [`msg ${sent.message.id} from alice, ack: stop here`],
    );
    assert.deepEqual((await pendingMessageLines(client, { ...q, via: 'stop' })).lines, [], 'never twice');
    const prime = await pendingMessageLines(client, { ...q, via: 'prime', all: true });
    assert.equal(prime.lines.length, 1);
    assert.equal(prime.messages[0]?.receipts[0]?.delivered_via, 'stop', 'the first delivery is kept');
  });

  test('every new command has --help', async () => {
    for (const cmd of ['note', 'send', 'ack', 'messages']) {
      const r = await runCli([cmd, '--help'], env('x'));
      assert.equal(r.code, 0, cmd);
      assert.match(r.stdout, /--json/, cmd);
    }
  });
});
