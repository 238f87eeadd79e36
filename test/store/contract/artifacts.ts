import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import type { MakeStore } from '../../support/ctx.js';
import { freshBoard, op, S } from './board.js';

const bytes = (s: string) => new TextEncoder().encode(s);

export function artifactContract(make: MakeStore): void {
  describe('artifacts', () => {
    const board = freshBoard(make);

    test("a task's artifacts are listed without their bytes, oldest first; a task no one can see lists not_found", async () => {
      const b = board();
      const task = await b.post('alice');
      assert.deepEqual(await b.call(op.listArtifacts, { task_id: task.id }), { artifacts: [] });
      const grant = await b.claim(task.id, 'bob');
      const put = { task_id: task.id, claim_id: grant.claim_id };
      await b.call(op.putArtifact, { ...put, artifact_id: 'log.txt', name: 'build log', bytes: bytes('ok') });
      b.clock.advance(S);
      await b.call(op.putArtifact, { ...put, artifact_id: 'a.diff', content_type: 'text/x-diff', bytes: bytes('--') });
      const { artifacts } = await b.call(op.listArtifacts, { task_id: task.id });
      assert.deepEqual(
        artifacts.map((a) => [a.id, a.name, a.size, a.content_type]),
        [
          ['log.txt', 'build log', 2, 'application/octet-stream'],
          ['a.diff', 'a.diff', 2, 'text/x-diff'],
        ],
      );
      assert.ok(artifacts.every((a) => !('bytes' in a)));
      const secret = await b.post('alice', { for: 'carol' });
      assert.equal((await b.fail(op.listArtifacts, { task_id: secret.id, agent: 'mallory' })).code, 'not_found');
    });

    test('the current claim uploads an artifact; the same id with the same bytes answers created: false, other bytes artifact_conflict', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await b.claim(task.id, 'bob');
      const put = {
        task_id: task.id,
        claim_id: grant.claim_id,
        artifact_id: 'patch.diff',
        content_type: 'text/x-diff',
      };
      const first = await b.call(op.putArtifact, { ...put, bytes: bytes('--- a\n+++ b\n') });
      assert.equal(first.created, true);
      assert.deepEqual(first.artifact, {
        id: 'patch.diff',
        task_id: task.id,
        name: 'patch.diff',
        size: 12,
        sha256: createHash('sha256').update('--- a\n+++ b\n').digest('hex'),
        content_type: 'text/x-diff',
      });
      const again = await b.call(op.putArtifact, { ...put, bytes: bytes('--- a\n+++ b\n') });
      assert.deepEqual(again, { artifact: first.artifact, created: false });
      const err = await b.fail(op.putArtifact, { ...put, bytes: bytes('other') });
      assert.equal(err.code, 'artifact_conflict');
      const got = await b.call(op.getArtifact, { task_id: task.id, artifact_id: 'patch.diff' });
      assert.deepEqual(got.artifact, first.artifact);
      assert.equal(Buffer.from(got.bytes).toString(), '--- a\n+++ b\n');
    });

    test('a stale claim cannot upload an artifact, neither a new one nor a retry of an existing one', async () => {
      const b = board();
      const task = await b.post('alice');
      const old = await b.claim(task.id, 'bob', 10);
      await b.call(op.putArtifact, { task_id: task.id, claim_id: old.claim_id, artifact_id: 'log', bytes: bytes('x') });
      b.clock.advance(10 * S);
      const lapsed = { task_id: task.id, claim_id: old.claim_id, bytes: bytes('x') };
      assert.equal((await b.fail(op.putArtifact, { ...lapsed, artifact_id: 'log2' })).code, 'lease_expired');
      const current = await b.claim(task.id, 'carol');
      assert.equal((await b.fail(op.putArtifact, { ...lapsed, artifact_id: 'log2' })).code, 'stale_claim');
      assert.equal((await b.fail(op.putArtifact, { ...lapsed, artifact_id: 'log' })).code, 'stale_claim');
      assert.equal(
        (await b.fail(op.putArtifact, { ...lapsed, claim_id: 'c_forged', artifact_id: 'log' })).code,
        'stale_claim',
      );
      assert.equal(
        await b.call(op.getArtifact, { task_id: task.id, artifact_id: 'log2' }).then(
          () => 'found',
          (e: { code: string }) => e.code,
        ),
        'not_found',
      );
      // The current claim may reuse the id with the same bytes.
      const reuse = await b.call(op.putArtifact, { ...lapsed, claim_id: current.claim_id, artifact_id: 'log' });
      assert.equal(reuse.created, false);
    });

    test('an artifact on a cancelled task is refused with cancelled', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await b.claim(task.id, 'bob');
      await b.call(op.cancelTask, { task_id: task.id, agent: 'alice' });
      const err = await b.fail(op.putArtifact, {
        task_id: task.id,
        claim_id: grant.claim_id,
        artifact_id: 'a',
        bytes: bytes('x'),
      });
      assert.equal(err.code, 'cancelled');
    });
  });
}
