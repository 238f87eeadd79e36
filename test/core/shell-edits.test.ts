/**
 * SPEC §10 shell edits, the pure rule (core/edits/shell-edits.ts): which paths a command changed, told from git's
 * look before and after it, and what the model is told to do about one another agent holds.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CTIME_SLACK_MS, type ShellLook, shellChanges, shellConflictReason } from '../../src/core/edits/shell-edits.js';

const T0 = 1_000_000;
const old = T0 - 10 * CTIME_SLACK_MS;
const look = (untracked: boolean, entries: Record<string, [string, number, number?]>): ShellLook => ({
  takenAt: T0,
  untracked,
  entries: Object.fromEntries(
    Object.entries(entries).map(([p, [stamp, ctimeMs, bornMs]]) => [p, { stamp, ctimeMs, bornMs: bornMs ?? 0 }]),
  ),
});

test('a tracked file changed, restored or deleted by the command is a change; one changed before and left alone is not', () => {
  const before = look(false, {
    'src/dirty.ts': ['1 .M 10 5', old],
    'src/restored.ts': ['1 .M 12 6', old],
  });
  const after = look(true, {
    'src/dirty.ts': ['1 .M 10 5', old],
    'src/edited.ts': ['1 .M 3 9', T0 + 5],
    'src/gone.ts': ['1 .D gone', 0],
  });
  assert.deepEqual(shellChanges(before, after), ['src/edited.ts', 'src/gone.ts', 'src/restored.ts']);
});

test('a file written again to the same size and mtime is a change by its ctime, even a little before the look (the kernel clock lags)', () => {
  const before = look(false, { 'src/a.ts': ['1 .M 10 5', old] });
  const after = look(true, { 'src/a.ts': ['1 .M 10 5', T0 - CTIME_SLACK_MS / 2] });
  assert.deepEqual(shellChanges(before, after), ['src/a.ts']);
});

test('with a look before that left untracked files out, an untracked file counts by its ctime alone', () => {
  const before = look(false, {});
  const after = look(true, {
    'notes.txt': ['? ', old],
    'src/generated.ts': ['? ', T0 + 3, T0 + 3],
  });
  assert.deepEqual(shellChanges(before, after), ['src/generated.ts']);
});

test('the model is told to restore a tracked file, remove one the command created, and never to rm an untracked file it only changed', () => {
  const before = look(false, {});
  const after = look(true, {
    'src/a.ts': ['1 .M 3 9', T0 + 5],
    'src/new.ts': ['? ', T0 + 5, T0 + 5],
    'src/theirs.ts': ['? ', T0 + 5, old],
  });
  const reason = shellConflictReason(
    [
      { resource: 'src/a.ts', holder: 'alice' },
      { resource: 'src/new.ts', holder: 'bob' },
      { resource: 'src/theirs.ts', holder: 'carol' },
    ],
    before,
    after,
  );
  assert.equal(
    reason,
    'lock_conflict: your command changed src/a.ts, which alice holds — restore it (git restore src/a.ts); ' +
      'your command changed src/new.ts, which bob holds — remove it (rm src/new.ts); ' +
      'your command changed src/theirs.ts, which carol holds — undo your change to it (git has no copy of it to restore) and edit something else',
  );
});
