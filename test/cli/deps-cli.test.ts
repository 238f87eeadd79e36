import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../support/ctx.js';
import { runCli, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';

describe('the coord CLI for dependencies and plans (SPEC §11)', () => {
  let d: SpawnedDaemon;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    d = await spawnDaemon();
    env = { COORD_STATE: d.stateDir, COORD_BOARD: 'deps-cli', COORD_AGENT: 'tester' };
  });
  after(async () => {
    await d.stop();
  });

  const json = async (args: string[]) => {
    const r = await runCli([...args, '--json'], env);
    return { ...r, body: r.stdout ? JSON.parse(r.stdout) : null };
  };

  test('post --after makes a blocked task; ls --ready and --blocked tell them apart; deps --remove frees it', async () => {
    const first = (await json(['post', 'write the schema'])).body.task;
    const parent = (await json(['post', 'search epic'])).body.task;
    const posted = await json(['post', 'build the api', '--after', first.id, '--parent', parent.id]);
    assert.equal(posted.code, 0, posted.stderr);
    const api = posted.body.task;
    assert.deepEqual(api.blocked_by, [first.id]);
    assert.equal(api.parent, parent.id);
    const ready = (await json(['ls', '--ready'])).body.tasks.map((t: { id: string }) => t.id);
    assert.ok(ready.includes(first.id) && !ready.includes(api.id));
    const blocked = (await json(['ls', '--blocked'])).body.tasks.map((t: { id: string }) => t.id);
    assert.deepEqual(blocked, [api.id]);
    const human = await runCli(['ls', '--blocked'], env);
    assert.match(human.stdout, new RegExp(`#${api.id}\\s+blocked.*waits for #${first.id}`));
    const claim = await runCli(['claim', api.id], env);
    assert.equal(claim.code, 2, 'blocked is a conflict');
    assert.match(claim.stderr, /blocked/);
    const cycle = await runCli(['deps', first.id, '--add', api.id], env);
    assert.equal(cycle.code, 2);
    assert.match(cycle.stderr, new RegExp(`${first.id} → ${api.id} → ${first.id}`));
    const freed = await json(['deps', api.id, '--remove', first.id]);
    assert.equal(freed.body.task.ready, true);
    assert.equal((await json(['ls', '--parent', parent.id])).body.tasks[0].id, api.id);
  });

  test('plan FILE posts a YAML plan in one call, and tree draws what waits for what', async () => {
    const file = join(tempDir(), 'plan.yaml');
    writeFileSync(
      file,
      `board: deps-tree
tasks:
  - ref: schema
    title: add the index
  - ref: api
    title: expose search
    blocked_by: [schema]
  - ref: ui
    title: search box
    blocked_by: [api, schema]
`,
    );
    const posted = await json(['plan', file, '--key', 'tree-1']);
    assert.equal(posted.code, 0, posted.stderr);
    const t = posted.body.tasks;
    assert.deepEqual(t.ui.blocked_by, [t.api.id, t.schema.id]);
    const again = await json(['plan', file, '--key', 'tree-1']);
    assert.equal(again.body.created, false);
    assert.equal(again.body.tasks.ui.id, t.ui.id);
    const tree = await runCli(['tree', '--board', 'deps-tree'], env);
    assert.equal(tree.code, 0, tree.stderr);
    assert.equal(
      tree.stdout.trim(),
      [
        `#${t.ui.id} [blocked] search box`,
        `├─ #${t.api.id} [blocked] expose search`,
        `│  └─ #${t.schema.id} [ready] add the index`,
        `└─ #${t.schema.id} [ready] add the index`,
      ].join('\n'),
    );
    const one = await runCli(['tree', t.api.id, '--board', 'deps-tree'], env);
    assert.equal(
      one.stdout.trim(),
      [`#${t.api.id} [blocked] expose search`, `└─ #${t.schema.id} [ready] add the index`].join('\n'),
    );
  });
});
