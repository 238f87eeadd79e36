/**
 * SPEC §14 across real processes: a real git repository with a main work tree and two linked ones, a
 * real daemon, the real CLI and the real pre-edit hook (as Claude Code runs it). Agent A edits, commits
 * and submits in one work tree; agent B's edit of the same path from the other work tree is refused with
 * the hold's reason until the work is merged; agents in A's own work tree are never blocked.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { identify } from '../../../src/client/agent-identity.js';
import { boardForDir } from '../../../src/state-dir/board-name.js';
import { runCoord } from '../../hooks/run-hook.js';
import type { SpawnedDaemon } from '../../support/daemon.js';
import { waitFor } from '../../support/wait-for.js';
import { type Repo, repoWithWorktrees } from '../git-repo.js';

/** Daemons sharing one board state: one on SQLite; two on one PostgreSQL database (holds are board state). */
export interface Daemons {
  /** Agent A and the CLI use the first; agent B the last. */
  daemons: SpawnedDaemon[];
  stop(): Promise<void>;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: 'pipe',
  });
const agentOf = (session: string) => identify('claude', { CLAUDE_CODE_SESSION_ID: session })?.agent ?? '';

export function holdsSuite(store: string, start: () => Promise<Daemons>): void {
  describe(`change holds across work trees (SPEC §14), ${store}`, () => {
    let ds: Daemons;
    let d: SpawnedDaemon;
    let dB: SpawnedDaemon;
    let repo: Repo;
    let board: string;
    let wtA = '';
    let wtB = '';
    before(async () => {
      ds = await start();
      d = ds.daemons[0] as SpawnedDaemon;
      dB = ds.daemons.at(-1) as SpawnedDaemon;
      repo = repoWithWorktrees(2);
      [wtA = '', wtB = ''] = repo.linked;
      board = boardForDir(repo.main) ?? '';
    });
    after(async () => {
      await ds.stop();
    });

    /** The pre-edit hook as Claude Code runs it, for session `session` editing `file` in `tree`. */
    const edit = async (session: string, tree: string, file: string) => {
      // Agents in the second linked work tree talk to the last daemon (on PostgreSQL, another process).
      const via = tree === wtB ? dB : d;
      const r = await runCoord(['hook', 'pre-edit', '--client', 'claude', '--state', via.stateDir], {
        stdin: {
          hook_event_name: 'PreToolUse',
          cwd: tree,
          tool_name: 'Edit',
          tool_input: { file_path: join(tree, file) },
        },
        env: { CLAUDE_CODE_SESSION_ID: session },
        cwd: tree,
      });
      assert.equal(r.code, 0, r.stderr);
      const out = r.stdout ? JSON.parse(r.stdout).hookSpecificOutput : null;
      return out?.permissionDecision === 'deny'
        ? { allowed: false, reason: String(out.permissionDecisionReason), context: '' }
        : { allowed: true, reason: '', context: String(out?.additionalContext ?? '') };
    };
    const coord = (cwd: string, ...args: string[]) =>
      runCoord([...args, '--state', d.stateDir], { cwd, env: { COORD_STATE: d.stateDir, COORD_AGENT: 'person' } });
    const json = async (cwd: string, ...args: string[]) => {
      const r = await coord(cwd, ...args, '--json');
      assert.equal(r.code, 0, r.stdout + r.stderr);
      return JSON.parse(r.stdout);
    };
    /** Post a task and claim it from `tree` as `agent`. */
    const claimIn = async (tree: string, agent: string, title: string) => {
      const { task } = await json(repo.main, 'post', title, '--agent', 'lead');
      const grant = await json(tree, 'claim', task.id, '--agent', agent);
      return { id: task.id as string, claim: grant.claim_id as string };
    };
    const locks = async () => ((await (await d.fetch(`/v1/locks?board=${board}`)).json()) as { locks: any[] }).locks;

    test("A's edit, commit and submit turn its auto-lock into a hold: B's edit from another work tree is refused naming work tree, branch, task and agent; an agent in A's own work tree edits on", async () => {
      const a = agentOf('hold-a');
      const t = await claimIn(wtA, a, 'parse dates');
      assert.equal((await edit('hold-a', wtA, 'src/a.ts')).allowed, true);
      appendFileSync(join(wtA, 'src/a.ts'), 'export const parsed = true;\n');
      git(wtA, 'commit', '-qam', 'parse dates');
      const done = await json(wtA, 'submit', t.id, '--claim', t.claim, '--ok');
      assert.equal(done.task.change.worktree, wtA);
      assert.equal(done.task.change.branch, 'wt1');
      assert.deepEqual(done.task.change.paths, ['src/a.ts']);
      const hold = (await locks()).find((l) => l.resources.includes('src/a.ts'));
      assert.ok(hold?.hold, JSON.stringify(await locks()));
      assert.equal(hold.worktree, wtA);
      assert.equal(hold.task_id, t.id);

      const refused = await edit('hold-b', wtB, 'src/a.ts');
      assert.equal(refused.allowed, false);
      assert.match(
        refused.reason,
        new RegExp(
          `^lock_conflict: src/a\\.ts has changes not merged yet in worktree \\.\\./${basename(wtA)} \\(branch wt1, task #${t.id} by ${a.replace('#', '#')}\\)`,
        ),
      );
      assert.equal((await edit('hold-a2', wtA, 'src/a.ts')).allowed, true, 'the same work tree continues the branch');
      // That agent's own auto-lock (a live lock) would block B by itself: it ends, and becomes a hold of wtA too.
      const own = (await locks()).find((l) => !l.hold && l.agent === agentOf('hold-a2'));
      assert.equal((await coord(wtA, 'unlock', own.lock_id)).code, 0);
    });

    test('a lock from a work tree on a path with no change there ends as released and never becomes a hold', async () => {
      const taken = await json(wtA, 'lock', 'src/untouched.ts', '--agent', 'tidy-a');
      assert.equal((await coord(wtA, 'unlock', taken.lock_id)).code, 0);
      assert.deepEqual(
        (await locks()).filter((l) => l.resources.includes('src/untouched.ts')),
        [],
        'nothing is held: the path is not pending in its work tree',
      );
      const { events } = (await (await d.fetch(`/v1/events?format=json&board=${board}&limit=1000`)).json()) as {
        events: { type: string; lock_id: string | null; data: { reason?: string } }[];
      };
      assert.deepEqual(
        events.filter((e) => e.lock_id === taken.lock_id).map((e) => [e.type, e.data.reason ?? null]),
        [
          ['lock.acquired', null],
          ['lock.released', 'released'],
        ],
      );
    });

    test('once the work is merged into the target, the hold ends by itself and B may edit', async () => {
      git(repo.main, 'merge', '-q', '--no-edit', 'wt1');
      const now = await edit('hold-b', wtB, 'src/a.ts');
      assert.equal(now.allowed, true, now.reason);
      assert.equal(
        (await locks()).some((l) => l.hold && l.resources.includes('src/a.ts')),
        false,
      );
    });

    test('a completed submit with a touched path not committed is refused (exit 2, uncommitted_changes naming it) and nothing is written; committed, its change record lists exactly git rev-list since the claim', async () => {
      const a = agentOf('dirty-a');
      const t = await claimIn(wtA, a, 'dirty work');
      const claimHead = git(wtA, 'rev-parse', 'HEAD').trim();
      assert.equal((await edit('dirty-a', wtA, 'src/b.ts')).allowed, true);
      writeFileSync(join(wtA, 'src/b.ts'), 'export const b = 1;\n');
      git(wtA, 'add', 'src/b.ts');
      git(wtA, 'commit', '-qm', 'add b');
      appendFileSync(join(wtA, 'src/b.ts'), 'export const b2 = 2;\n');
      const refused = await coord(wtA, 'submit', t.id, '--claim', t.claim, '--ok');
      assert.equal(refused.code, 2, refused.stdout + refused.stderr);
      assert.match(refused.stderr + refused.stdout, /uncommitted_changes: src\/b\.ts/);
      assert.match(refused.stderr, /or submit with --allow-dirty to leave them out/, 'the CLI names its own flag');
      const still = await json(repo.main, 'show', t.id);
      assert.equal(still.task.state, 'claimed');
      assert.equal(still.task.change, null);

      git(wtA, 'commit', '-qam', 'b2');
      const done = await json(wtA, 'submit', t.id, '--claim', t.claim, '--ok');
      const revList = git(wtA, 'rev-list', `${claimHead}..HEAD`).trim().split('\n');
      assert.deepEqual(
        done.task.change.commits.map((c: { sha: string }) => c.sha),
        revList,
      );
      assert.equal(done.task.change.claim_head, claimHead);
      assert.deepEqual(
        done.task.change.commits.map((c: { subject: string }) => c.subject),
        ['b2', 'add b'],
      );
      assert.equal(done.task.change.clean, true);
      const replay = await json(wtA, 'submit', t.id, '--claim', t.claim, '--ok');
      assert.equal(replay.replayed, true);
      assert.deepEqual(replay.task.change, done.task.change, 'the record is fixed at the first submit');
    });

    test('coord changes lists each work tree with its pending paths and the overlaps between them; coord locks shows the hold until merged', async () => {
      appendFileSync(join(wtB, 'src/b.ts'), '');
      writeFileSync(join(wtB, 'src/b.ts'), 'export const other = 3;\n');
      const c = await json(wtB, 'changes');
      assert.equal(c.target, 'main');
      const a = c.worktrees.find((w: { path: string }) => w.path === wtA);
      const b = c.worktrees.find((w: { path: string }) => w.path === wtB);
      assert.ok(a.pending.includes('src/b.ts'), JSON.stringify(a));
      assert.ok(b.pending.includes('src/b.ts'), JSON.stringify(b));
      assert.equal(a.pending_count, a.pending.length);
      assert.deepEqual(
        c.worktrees.filter((w: { agents: string[] }) => w.agents.includes('coord')),
        [],
        'the work tree a CLI call names is not an agent working there',
      );
      assert.ok(a.ahead >= 2);
      assert.deepEqual(
        c.overlaps.find((o: { path: string }) => o.path === 'src/b.ts')?.worktrees.sort(),
        [wtA, wtB].sort(),
      );
      const text = await coord(wtB, 'locks');
      assert.match(text.stdout, /until merged/);
    });

    test('an edit of a path with changes not merged yet in another work tree that no hold covers is allowed, with one warning line the model reads', async () => {
      // A person's edit in B's work tree: no lock, so no hold.
      writeFileSync(join(wtB, 'src/shared.ts'), 'export const shared = 1;\n');
      // What coord last saw of the other work trees (refreshed every few seconds, and by coord changes).
      await json(wtB, 'changes');
      const warned = await edit('warn-a', wtA, 'src/shared.ts');
      assert.equal(warned.allowed, true, warned.reason);
      assert.match(
        warned.context,
        new RegExp(
          `^coord warning: src/shared\\.ts in worktree \\.\\./${basename(wtB)} \\(branch wt2\\) has changes not merged yet that no agent holds — your edit is allowed`,
        ),
      );
      assert.equal(warned.context.split('\n').length, 1, 'one line');
      assert.equal((await edit('warn-a', wtA, 'src/quiet.ts')).context, '', 'nothing pending elsewhere: nothing said');
      assert.equal((await edit('warn-b', wtB, 'src/shared.ts')).context, '', 'its own work tree is not warned of');
    });

    test("an agent's MCP session cannot end another agent's hold: unlock_files with its lock_id, forced, is forbidden and the hold stays un-noted; the conflict it met named no lock_id", async () => {
      const held = (await locks()).find((l) => l.hold && l.resources.includes('src/b.ts'));
      assert.ok(held, JSON.stringify(await locks()));
      const transport = new StreamableHTTPClientTransport(new URL(`${dB.url}/mcp`), {
        requestInit: {
          headers: {
            authorization: `Bearer ${dB.token}`,
            'coord-agent': 'bob',
            'coord-board': board,
            'coord-root': wtB,
          },
        },
      });
      const bob = new Client({ name: 'bob', version: '1' });
      await bob.connect(transport);
      try {
        const met = (await bob.callTool({ name: 'lock_files', arguments: { files: ['src/b.ts'] } })) as any;
        assert.equal(met.isError, true);
        assert.match(met.content[0].text, /^lock_conflict: src\/b\.ts has changes not merged yet/);
        assert.ok(!JSON.stringify(met).includes(held.lock_id), JSON.stringify(met));
        const ended = (await bob.callTool({
          name: 'unlock_files',
          arguments: { lock_id: held.lock_id, force: true },
        })) as any;
        assert.equal(ended.isError, true, ended.content[0].text);
        assert.match(ended.content[0].text, /^forbidden: lock \S+ is a change hold of \S+'s work not merged yet/);
      } finally {
        await bob.close();
      }
      assert.ok((await locks()).some((l) => l.lock_id === held.lock_id && l.hold));
      const shown = await json(repo.main, 'show', held.task_id);
      assert.ok(!shown.task.notes.some((n: { text: string }) => /unlock --force/.test(n.text)), 'no "ended" note');
    });

    test('coord unlock --force PATH ends the hold at once and notes it on its task', async () => {
      const held = (await locks()).find((l) => l.hold && l.resources.includes('src/b.ts'));
      assert.ok(held, `src/b.ts is held by the dirty-work task: ${JSON.stringify(await locks())}`);
      assert.equal((await edit('force-b', wtB, 'src/b.ts')).allowed, false);
      const r = await coord(wtB, 'unlock', '--force', 'src/b.ts', '--agent', 'alice');
      assert.equal(r.code, 0, r.stderr);
      assert.equal((await edit('force-b', wtB, 'src/b.ts')).allowed, true);
      const shown = await json(repo.main, 'show', held.task_id);
      assert.ok(
        shown.task.notes.some((n: { text: string }) => /ended by alice with unlock --force/.test(n.text)),
        JSON.stringify(shown.task.notes),
      );
    });

    test("a hold left by an agent whose session ended names the task it held: B's refusal says task #id by that agent", async () => {
      const transport = new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), {
        requestInit: {
          headers: {
            authorization: `Bearer ${d.token}`,
            'coord-agent': 'agent-a',
            'coord-board': board,
            'coord-root': wtA,
          },
        },
      });
      const a = new Client({ name: 'agent-a', version: '1' });
      await a.connect(transport);
      const { task } = await json(repo.main, 'post', 'session work', '--agent', 'lead');
      const claimed = (await a.callTool({ name: 'claim_task', arguments: { task_id: task.id } })) as any;
      assert.notEqual(claimed.isError, true, claimed.content[0].text);
      const locked = (await a.callTool({ name: 'lock_files', arguments: { files: ['src/c.ts'] } })) as any;
      assert.notEqual(locked.isError, true, locked.content[0].text);
      writeFileSync(join(wtA, 'src/c.ts'), 'export const c = 1;\n');
      await transport.terminateSession();
      await a.close();

      const hold = await waitFor(async () => (await locks()).find((l) => l.hold && l.resources.includes('src/c.ts')));
      assert.equal(hold.task_id, task.id, JSON.stringify(hold));
      const refused = await edit('after-b', wtB, 'src/c.ts');
      assert.equal(refused.allowed, false);
      assert.match(
        refused.reason,
        new RegExp(
          `src/c\\.ts has changes not merged yet in worktree \\S+ \\(branch wt1, task #${task.id} by agent-a\\)`,
        ),
      );
    });

    test('a completed submit is refused while a path changed since the claim is uncommitted, even one the agent never locked (its lock was refused); a path already dirty at the claim is not its', async () => {
      writeFileSync(join(wtA, 'src/before.ts'), 'export const before = 0;\n');
      const kept = await json(repo.main, 'lock', 'src/d.ts', '--agent', 'keeper');
      const a = 'agent-d';
      const t = await claimIn(wtA, a, 'touch d');
      const refusedLock = await coord(wtA, 'lock', 'src/d.ts', '--agent', a);
      assert.equal(refusedLock.code, 2, refusedLock.stdout + refusedLock.stderr);
      writeFileSync(join(wtA, 'src/d.ts'), 'export const d = 1;\n');
      const refused = await coord(wtA, 'submit', t.id, '--claim', t.claim, '--ok');
      assert.equal(refused.code, 2, refused.stdout + refused.stderr);
      assert.match(refused.stderr, /uncommitted_changes: src\/d\.ts in /);
      assert.doesNotMatch(refused.stderr, /before\.ts/, 'dirty before the claim: not this claim’s');
      assert.equal((await json(repo.main, 'show', t.id)).task.state, 'claimed', 'nothing completed');
      assert.equal((await coord(repo.main, 'unlock', kept.lock_id)).code, 0);
    });

    test('coord target names the branch work is merged into; a branch that does not exist is refused and changes nothing', async () => {
      const bad = await coord(repo.main, 'target', 'no-such-branch');
      assert.equal(bad.code, 1, bad.stdout + bad.stderr);
      assert.match(bad.stderr + bad.stdout, /no branch no-such-branch/);
      assert.equal((await json(repo.main, 'changes')).target, 'main');
      assert.equal((await json(repo.main, 'target', 'wt1')).target, 'wt1');
      assert.equal((await json(repo.main, 'changes')).target, 'wt1');
      await json(repo.main, 'target', 'main');
    });
  });
}
