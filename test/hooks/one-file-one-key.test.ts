/**
 * SPEC §10 "one file, one key", attacked through real hook processes against a real daemon and real git
 * repositories: every alias of a locked file — a symlink from outside any repository, from another
 * repository, from a submodule, from the main tree into a linked tree, a symlinked folder, `..` after a
 * symlinked folder, NFD against NFC — is the file it names; Codex's patch headers are read as Codex reads
 * them (indented with spaces, a tab, a no-break space); a move or delete needs its source and destination
 * free; a submodule's or nested repository's file is keyed on one board whether the lock came from the
 * superproject (`coord lock vendor/lib/x.ts`) or the hook's check from inside it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { tempDir } from '../support/ctx.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';
import { runCoord } from './run-hook.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'pipe' });

/** A repository of its own with one committed file. */
function smallRepo(dir: string, file: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), 'x\n');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'init');
}

describe('one file, one key', () => {
  let d: SpawnedDaemon;
  let main: string;
  let linked: string;
  let top: string;
  let board: string;
  before(async () => {
    d = await spawnDaemon();
    const repo = repoWithWorktrees(1);
    main = repo.main;
    linked = repo.linked[0] ?? '';
    board = boardForDir(main) ?? '';
    top = realpathSync(tempDir('coord-alias-'));
    // A submodule at vendor/lib and an independent repository nested at nested/ (untracked).
    smallRepo(join(top, 'lib-origin'), 'x.ts');
    git(main, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', join(top, 'lib-origin'), 'vendor/lib');
    git(main, 'commit', '-q', '-m', 'submodule');
    smallRepo(join(main, 'nested'), 'n.ts');
    // Links to src/a.ts from everywhere a link can stand.
    mkdirSync(join(top, 'outside'));
    symlinkSync(join(main, 'src', 'a.ts'), join(top, 'outside', 'a-link.ts'));
    symlinkSync(join(main, 'src'), join(top, 'outside', 'src-link'));
    smallRepo(join(top, 'other'), 'o.ts');
    symlinkSync(join(main, 'src', 'a.ts'), join(top, 'other', 'a-link.ts'));
    symlinkSync(join(main, 'src', 'a.ts'), join(main, 'vendor', 'lib', 'a-link.ts'));
    symlinkSync(join(linked, 'src', 'a.ts'), join(main, 'into-linked.ts'));
    symlinkSync(join(top, 'other'), join(main, 'other-link'));
    // The holder: another agent holds src/a.ts, and src/café.ts spelt NFD over HTTP.
    for (const resources of [['src/a.ts'], ['src/cafe\u0301.ts'], ['src/b.ts']]) {
      const r = await d.fetch('/v1/locks', {
        method: 'POST',
        json: { agent: 'holder', board, resources, lease_s: 600 },
      });
      assert.equal(r.status, 201, await r.text());
    }
  });
  after(async () => {
    await d.stop();
  });

  const claudeEdit = (file: string, cwd = main) =>
    runCoord(['hook', 'pre-edit', '--client', 'claude', '--state', d.stateDir], {
      stdin: { hook_event_name: 'PreToolUse', cwd, tool_name: 'Edit', tool_input: { file_path: file } },
      env: { CLAUDE_CODE_SESSION_ID: 'sess-alias' },
      cwd,
    });
  const codexPatch = (lines: string[]) =>
    runCoord(['hook', 'pre-edit', '--client', 'codex', '--state', d.stateDir], {
      stdin: {
        hook_event_name: 'PreToolUse',
        cwd: main,
        session_id: 'codex-alias',
        tool_name: 'apply_patch',
        tool_input: { command: ['*** Begin Patch', ...lines, '*** End Patch'].join('\n') },
      },
      cwd: main,
    });
  const denied = (r: { stdout: string; stderr: string }): string =>
    r.stdout ? (JSON.parse(r.stdout).hookSpecificOutput?.permissionDecisionReason ?? '') : '';
  const locksOn = async (b: string) =>
    ((await (await d.fetch(`/v1/locks?board=${encodeURIComponent(b)}`)).json()) as { locks: any[] }).locks;

  test('every alias of a locked file is refused: links from outside, another repository, a submodule, the main tree into a linked tree, symlinked folders, .., //, NFD', async () => {
    const aliases = [
      join(top, 'outside', 'a-link.ts'),
      join(top, 'outside', 'src-link', 'a.ts'),
      join(top, 'other', 'a-link.ts'),
      join(main, 'vendor', 'lib', 'a-link.ts'),
      join(main, 'into-linked.ts'),
      `${main}/other-link/../src/a.ts`,
      `${main}//src/./a.ts`,
      `${linked}/src/../src/a.ts`,
    ];
    const allowed: string[] = [];
    for (const alias of aliases) {
      if (!/^lock_conflict: src\/a\.ts is held by holder/.test(denied(await claudeEdit(alias)))) allowed.push(alias);
    }
    const nfc = await claudeEdit(join(main, 'src', 'caf\u00e9.ts'));
    if (!/^lock_conflict: src\/café\.ts is held by holder/.test(denied(nfc))) allowed.push('NFC edit of an NFD lock');
    assert.deepEqual(allowed, [], 'aliases let through');
  });

  test('a lock taken NFC stops an NFD edit, and the key stored is NFC whatever the spelling', async () => {
    const r = await d.fetch('/v1/locks', {
      method: 'POST',
      json: { agent: 'holder', board, resources: ['src/na\u00efve.ts'], lease_s: 600 },
    });
    assert.equal(r.status, 201);
    const nfd = await claudeEdit(join(main, 'src', 'nai\u0308ve.ts'));
    assert.match(denied(nfd), /^lock_conflict: src\/naïve\.ts is held by holder/);
    const keys = (await locksOn(board)).flatMap((l) => l.resources);
    assert.ok(keys.includes('src/caf\u00e9.ts') && !keys.includes('src/cafe\u0301.ts'), keys.join(' '));
  });

  test("Codex's indented headers (spaces, a tab, a no-break space) are headers; a move onto, a move from and a delete of a locked file are refused", async () => {
    const attacks = [
      ['  *** Delete File: src/a.ts'],
      ['\t*** Delete File: src/a.ts'],
      ['\u00a0*** Delete File: src/a.ts'],
      ['*** Update File: src/free-1.ts', '*** Move to: src/a.ts', '@@', '-x', '+y'],
      ['*** Update File: src/a.ts', '*** Move to: src/free-2.ts', '@@', '-x', '+y'],
      ['*** Delete File: src/a.ts'],
      [' *** Update File: src/b.ts', '@@', '-x', '+y'],
      ['*** Add File: src/free-3.ts', '+x', '   *** Add File: src/b.ts', '+y'],
    ];
    const allowed: string[] = [];
    for (const lines of attacks) {
      if (!/^lock_conflict: src\/[ab]\.ts is held by holder/.test(denied(await codexPatch(lines))))
        allowed.push(JSON.stringify(lines));
    }
    assert.deepEqual(allowed, [], 'patches let through');
  });

  test('a submodule file locked from the superproject with coord lock is refused to the hook inside the submodule, and the other way round', async () => {
    const locked = await runCoord(['lock', 'vendor/lib/x.ts', '--state', d.stateDir], {
      cwd: main,
      env: { COORD_AGENT: 'cli-holder' },
    });
    assert.equal(locked.code, 0, locked.stderr);
    for (const cwd of [main, join(main, 'vendor', 'lib')]) {
      const r = await claudeEdit(join(main, 'vendor', 'lib', 'x.ts'), cwd);
      assert.match(denied(r), /^lock_conflict: x\.ts is held by cli-holder/, `from ${cwd}: ${r.stdout}${r.stderr}`);
    }
    // The hook's auto-lock inside a nested repository stops coord lock from the superproject.
    const edit = await claudeEdit(join(main, 'nested', 'n.ts'));
    assert.equal(edit.stdout, '', edit.stderr);
    const refused = await runCoord(['lock', 'nested/n.ts', '--state', d.stateDir], {
      cwd: main,
      env: { COORD_AGENT: 'cli-holder' },
    });
    assert.notEqual(refused.code, 0, refused.stdout);
    assert.match(refused.stderr, /lock_conflict/);
  });

  test('a file whose real place is outside every repository is not coord’s: allowed, nothing locked', async () => {
    const outsideFile = join(top, 'outside', 'plain.ts');
    writeFileSync(outsideFile, 'x\n');
    symlinkSync(outsideFile, join(main, 'src', 'to-outside.ts'));
    const before = (await locksOn(board)).length;
    const r = await claudeEdit(join(main, 'src', 'to-outside.ts'));
    assert.equal(r.code, 0);
    assert.equal(r.stdout, '');
    assert.equal((await locksOn(board)).length, before);
  });
});
