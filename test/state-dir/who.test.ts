/**
 * Who acts and on which board (src/state-dir/who.ts): one precedence for the CLI, `coord mcp` and the hooks,
 * and no other place that reads COORD_AGENT or COORD_BOARD.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { givenBoard, resolveAgent, resolveBoard } from '../../src/state-dir/who.js';
import { tsFiles } from '../architecture/source-reader.js';
import { tempDir } from '../support/ctx.js';

const SRC = join(import.meta.dirname, '../../src');

describe('who acts and on which board', () => {
  test('the agent is --agent, else $COORD_AGENT, else the client session’s name, else the fallback; empty counts as not given', () => {
    const env = { COORD_AGENT: 'from-env' };
    const all = { flag: 'from-flag', env, session: 'claude#1a2b3c', fallback: 'me@cli' };
    assert.equal(resolveAgent(all), 'from-flag');
    assert.equal(resolveAgent({ ...all, flag: undefined }), 'from-env');
    assert.equal(resolveAgent({ ...all, flag: '', env: { COORD_AGENT: '' } }), 'claude#1a2b3c');
    assert.equal(resolveAgent({ ...all, flag: undefined, env: {}, session: null }), 'me@cli');
    assert.equal(resolveAgent({ env: {} }), undefined, 'coord mcp without a name: the daemon names the agent');
  });

  test('the board is --board, else $COORD_BOARD, else the board of the place’s git repository, else default', () => {
    const repo = tempDir();
    execFileSync('git', ['init', '-q', repo]);
    mkdirSync(join(repo, 'src'));
    const inRepo = join(repo, 'src');
    const outside = tempDir();
    assert.equal(resolveBoard('flag-board', { COORD_BOARD: 'env-board' }, inRepo), 'flag-board');
    assert.equal(resolveBoard(undefined, { COORD_BOARD: 'env-board' }, inRepo), 'env-board');
    assert.equal(resolveBoard('', { COORD_BOARD: '' }, inRepo), boardForDir(repo));
    assert.equal(resolveBoard(undefined, {}, outside), 'default');
    assert.equal(givenBoard(undefined, { COORD_BOARD: 'env-board' }), 'env-board');
    assert.equal(givenBoard('', {}), undefined, 'nothing named outright: the place decides');
  });

  test('no source file but state-dir/who.ts reads COORD_AGENT or COORD_BOARD from the environment', () => {
    // A read: `env.COORD_AGENT` or `env['COORD_AGENT']` — not a list of names (the http hooks' allowedEnvVars).
    const reads = /\.COORD_(AGENT|BOARD)\b|[\w)\]]\s*\[\s*['"`]COORD_(AGENT|BOARD)['"`]\s*\]/;
    const found = tsFiles(SRC)
      .filter((f) => !f.endsWith(join('state-dir', 'who.ts')))
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .flatMap((line, i) => (reads.test(line) ? [`${relative(SRC, f)}:${i + 1}: ${line.trim()}`] : [])),
      );
    assert.deepEqual(found, []);
  });
});
