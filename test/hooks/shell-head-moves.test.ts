/**
 * SPEC §10 "Shell edits are seen too": a command that moves HEAD or commits (`git merge --ff-only`,
 * `cherry-pick`, `reset --hard`, `cp … && git commit --no-verify`) is judged by every path it changed in HEAD's
 * tree too — the work tree's status is clean before and after, so only comparing HEAD before and after sees
 * it. Through both doors that take shell looks: the command hook (git run by the hook) and the daemon's `http`
 * hook (git run by the daemon), real git and a real daemon.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hookPath } from '../../src/api/paths.js';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { hookKeyOf } from '../../src/state-dir/token.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';
import { runCoord } from './run-hook.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd, encoding: 'utf8' }).trim();

describe('commands that move HEAD are seen by the shell hooks', () => {
  let d: SpawnedDaemon;
  let repo: string;
  let board: string;
  let base: string;
  let change: string;
  before(async () => {
    d = await spawnDaemon();
    repo = repoWithWorktrees(0).main;
    writeFileSync(join(repo, 'src/held.ts'), '1\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'base');
    base = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-qb', 'feature');
    writeFileSync(join(repo, 'src/held.ts'), '2\n');
    git(repo, 'commit', '-qam', 'feature changes held');
    change = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', 'main');
    writeFileSync(join(repo, 'other.ts'), '3\n');
    board = boardForDir(repo) ?? '';
    const locked = await d.fetch('/v1/locks', {
      method: 'POST',
      json: { agent: 'alice', board, resources: ['src/held.ts'], lease_s: 600 },
    });
    assert.equal(locked.status, 201);
  });
  after(async () => {
    await d.stop();
  });

  const input = (event: 'pre-shell' | 'post-shell', session: string, call: string, command: string) => ({
    session_id: session,
    hook_event_name: event === 'pre-shell' ? 'PreToolUse' : 'PostToolUse',
    cwd: repo,
    tool_name: 'Bash',
    tool_use_id: call,
    tool_input: { command },
  });
  /** The two doors: each answers Claude Code's PostToolUse JSON (`decision: block`, `reason`) or nothing. */
  const doors = {
    command: async (event: 'pre-shell' | 'post-shell', session: string, call: string, command: string) => {
      const r = await runCoord(['hook', event, '--client', 'claude', '--state', d.stateDir], {
        stdin: input(event, session, call, command),
        env: { CLAUDE_CODE_SESSION_ID: session },
        cwd: repo,
      });
      assert.equal(r.code, 0, r.stderr);
      return r.stdout ? (JSON.parse(r.stdout) as { reason?: string }) : {};
    },
    http: async (event: 'pre-shell' | 'post-shell', session: string, call: string, command: string) => {
      const res = await fetch(d.url + hookPath('claude', event), {
        method: 'POST',
        headers: { authorization: `Bearer ${hookKeyOf(d.token)}`, 'content-type': 'application/json' },
        body: JSON.stringify(input(event, session, call, command)),
      });
      assert.equal(res.status, 200);
      return (await res.json()) as { reason?: string };
    },
  };

  /** Each command, run from a clean main at `base` (the start state is set outside the hooks). */
  const commands: { name: string; start: () => void; run: () => void }[] = [
    { name: 'git merge --ff-only', start: () => {}, run: () => git(repo, 'merge', '-q', '--ff-only', 'feature') },
    { name: 'git cherry-pick', start: () => {}, run: () => git(repo, 'cherry-pick', change) },
    {
      name: 'git reset --hard',
      start: () => git(repo, 'reset', '-q', '--hard', change),
      run: () => git(repo, 'reset', '-q', '--hard', base),
    },
    {
      name: 'cp … && git commit --no-verify',
      start: () => {},
      run: () => {
        writeFileSync(join(repo, 'src/held.ts'), 'copied\n');
        git(repo, 'commit', '--no-verify', '-qam', 'sneak');
      },
    },
  ];

  for (const [door, hook] of Object.entries(doors))
    for (const [i, c] of commands.entries()) {
      test(`${door} door: \`${c.name}\` changing a file another agent holds is reported to the model`, async () => {
        git(repo, 'reset', '-q', '--hard', base);
        c.start();
        const session = `sess-${door}-${i}`;
        const call = `call-${door}-${i}`;
        assert.deepEqual(await hook('pre-shell', session, call, c.name), {});
        c.run();
        assert.equal(git(repo, 'status', '--porcelain', '--untracked-files=no'), '', 'the work tree is clean after');
        const out = await hook('post-shell', session, call, c.name);
        assert.match(
          out.reason ?? '',
          /^lock_conflict: your command changed src\/held\.ts, which alice holds — put it back as it was before your command moved HEAD \(git checkout [0-9a-f]{12} -- src\/held\.ts, then commit\)/,
        );
      });
    }
});
