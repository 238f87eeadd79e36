/** The daemon's logs: a readable line on a terminal, JSON lines for files and supervisors, either on request. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resolveDaemonConfig } from '../../src/server/config.js';
import { makeLogger } from '../../src/server/logger.js';
import { runCli, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';

const tty = { stderrIsTTY: true };
const pipe = { stderrIsTTY: false };

function capture(format: 'pretty' | 'json') {
  let out = '';
  const write = (s: string) => {
    out += s;
  };
  const log = makeLogger('info', { write }, format);
  return { log, out: () => out };
}

describe('log format', () => {
  test('a terminal gets human lines, anything else JSON lines; the flag and COORD_LOG_FORMAT choose either', () => {
    assert.equal(resolveDaemonConfig({}, {}, tty).logFormat, 'pretty');
    assert.equal(resolveDaemonConfig({}, {}, pipe).logFormat, 'json');
    assert.equal(resolveDaemonConfig({}, {}).logFormat, 'json');
    assert.equal(resolveDaemonConfig({ logFormat: 'json' }, {}, tty).logFormat, 'json');
    assert.equal(resolveDaemonConfig({}, { COORD_LOG_FORMAT: 'json' }, tty).logFormat, 'json');
    assert.equal(resolveDaemonConfig({}, { COORD_LOG_FORMAT: 'pretty' }, pipe).logFormat, 'pretty');
    assert.equal(resolveDaemonConfig({ logFormat: 'pretty' }, { COORD_LOG_FORMAT: 'json' }, pipe).logFormat, 'pretty');
    assert.throws(() => resolveDaemonConfig({ logFormat: 'yaml' }, {}), /--log-format must be pretty or json/);
  });

  test('a human line reads time, level, message and the fields that matter, without pid or hostname', () => {
    const { log, out } = capture('pretty');
    log.info({ url: 'http://127.0.0.1:7777', store: 'sqlite', state: '/tmp/my state' }, 'coord daemon listening');
    assert.match(
      out(),
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}coord daemon listening url=http:\/\/127\.0\.0\.1:7777 store=sqlite state="\/tmp\/my state"\n$/,
    );
  });

  test('a human error line names the error and carries its stack; a warning only its message', () => {
    const { log, out } = capture('pretty');
    log.warn({ err: new Error('disk full') }, 'sweep failed');
    log.error({ err: new Error('gone away'), attempt: 2 }, 'store unavailable');
    const lines = out().split('\n');
    assert.match(lines[0] ?? '', / WARN {2}sweep failed err="disk full"$/);
    assert.match(lines[1] ?? '', / ERROR store unavailable err="gone away" attempt=2$/);
    assert.match(lines[2] ?? '', /^ {4}at /);
  });

  test('secrets stay redacted in human lines', () => {
    const { log, out } = capture('pretty');
    log.info({ token: 'secret-1', headers: { authorization: 'Bearer secret-2' } }, 'a request');
    assert.ok(!out().includes('secret-'), out());
    assert.match(out(), /token=\[redacted\] headers=\{"authorization":"\[redacted\]"\}/);
  });

  test('JSON lines stay pino JSON, one object a line', () => {
    const { log, out } = capture('json');
    log.info({ store: 'sqlite' }, 'coord daemon listening');
    const entry = JSON.parse(out()) as Record<string, unknown>;
    assert.equal(entry.msg, 'coord daemon listening');
    assert.equal(entry.store, 'sqlite');
    assert.equal(entry.level, 30);
  });

  test('coord serve --log-format pretty writes human lines to a pipe; an unknown format is a usage error', async () => {
    const d = await spawnDaemon({ args: ['--log-format', 'pretty'], env: { COORD_LOG_LEVEL: 'info' } });
    try {
      // stderr is a second pipe: its lines may arrive after the ready line on stdout.
      await waitFor(() => d.stderr().includes('coord daemon listening'), 'the listening line');
      assert.match(d.stderr(), /^\d\d:\d\d:\d\d\.\d{3} INFO {2}coord daemon listening url=/m);
      assert.ok(!d.stderr().includes('{"level"'), d.stderr());
    } finally {
      assert.equal(await d.stop(), 0);
    }
    const bad = await runCli(['serve', '--port', '0', '--log-format', 'yaml']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--log-format must be pretty or json, got "yaml"/);
  });
});
