import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePlanFile, YamlError } from '../../src/cli/plan-file.js';

describe('plan files: JSON or a small YAML subset', () => {
  test('a YAML plan reads as the same value as its JSON twin', () => {
    const yaml = `# the search feature
board: web
idempotency_key: "search-v1"
tasks:
  - ref: schema
    title: add the search index   # a comment
    priority: -1
    labels: [db, 'migration']
  - ref: api
    title: "expose /search: a GET"
    blocked_by:
      - schema
    body: |
      Return 20 hits.

      Page with a cursor.
  - ref: ui
    title: search box
    blocked_by: [api, schema]
    body: >-
      one folded
      line
`;
    assert.deepEqual(parsePlanFile(yaml), {
      board: 'web',
      idempotency_key: 'search-v1',
      tasks: [
        { ref: 'schema', title: 'add the search index', priority: -1, labels: ['db', 'migration'] },
        {
          ref: 'api',
          title: 'expose /search: a GET',
          blocked_by: ['schema'],
          body: 'Return 20 hits.\n\nPage with a cursor.\n',
        },
        { ref: 'ui', title: 'search box', blocked_by: ['api', 'schema'], body: 'one folded line' },
      ],
    });
  });

  test('a bare list at the top and a list at the same indent as its key both read', () => {
    assert.deepEqual(parsePlanFile('- ref: a\n  title: A\n- ref: b\n  title: B\n'), [
      { ref: 'a', title: 'A' },
      { ref: 'b', title: 'B' },
    ]);
    assert.deepEqual(parsePlanFile('tasks:\n- ref: a\n  title: A\n'), { tasks: [{ ref: 'a', title: 'A' }] });
  });

  test('JSON is read as JSON', () => {
    assert.deepEqual(parsePlanFile(' {"tasks": [{"ref": "a", "title": "A"}]}'), { tasks: [{ ref: 'a', title: 'A' }] });
  });

  test('what the subset does not know is refused with its line number', () => {
    assert.throws(
      () => parsePlanFile('tasks:\n  - ref: a\n    title\n'),
      (e: unknown) => e instanceof YamlError && /line 3/.test(e.message),
    );
    assert.throws(() => parsePlanFile('a: 1\na: 2\n'), /line 2: key "a" appears twice/);
    assert.throws(() => parsePlanFile('a: {b: 1}\n'), /inline \{mappings\}/);
    assert.throws(() => parsePlanFile('a:\n\tb: 1\n'), /tabs/);
  });
});
