/**
 * Issue 34, items 1, 3 and 4, with the real Claude Code, Codex and Gemini CLI set up by `coord setup <client>
 * --write` alone, each refused or told through its own tools:
 *
 * 1. an agent name the daemon does not accept (`COORD_AGENT="bob smith"`): the edit is refused with the reason,
 *    never let through as if the daemon were down;
 * 3. a shell command that moves HEAD (`git cherry-pick`) and so changes a file another agent holds, the work tree
 *    clean before and after: the model is told what it changed and how to put it back;
 * 4. a session working in work tree B editing `../wt-a/<file>` by its path, while a change hold of work tree A
 *    covers that file: refused with the hold's reason (the work tree of an edit is the path's, SPEC §14).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { suiteDaemon } from '../support/suite-daemon.js';
import {
  type Agent,
  argv,
  CLIENT_NAMES,
  editResult,
  editSteps,
  modelEnv,
  setUpAgent,
  startAgent,
  startFake,
} from './clients.js';
import type { FakeModel, Step } from './fake-model.js';
import { type ClientName, clientBin, describeRun, makeRepo, start } from './support.js';

const A2 = 'export const a = 2;';
const B1 = 'export const b = 1;';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: 'pipe',
  }).trim();

/** Each client's shell tool, as its model calls it. */
const SHELL: Record<ClientName, (command: string) => Step> = {
  claude: (command) => ({ tool: 'Bash', args: { command, description: 'run git' } }),
  gemini: (command) => ({ tool: 'run_shell_command', args: { command, description: 'run git' } }),
  codex: (command) => ({ tool: 'exec_command', args: { cmd: command } }),
};

/** One headless run; what the model was sent, for the assertions. */
async function run(
  agent: Agent,
  cwd: string,
  steps: Step[],
  opts: { env?: Record<string, string>; extraArgs?: string[]; codexFullAccess?: boolean } = {},
): Promise<FakeModel> {
  const fake = await startFake(agent.client, [...steps, { say: 'done' }]);
  try {
    const started =
      agent.client === 'codex' && opts.codexFullAccess
        ? // Codex's workspace-write sandbox keeps .git read-only (no commit, no cherry-pick): run it as a user who
          // lets it commit does, without the sandbox.
          start(
            clientBin('codex'),
            argv('codex', fake, 'Do as asked.').map((a) => (a === 'workspace-write' ? 'danger-full-access' : a)),
            { cwd, env: { ...agent.env, ...modelEnv('codex', fake) }, timeoutMs: 180_000 },
          )
        : startAgent(agent, fake, cwd, 'Do as asked.', opts);
    const r = await started.done;
    assert.equal(r.code, 0, describeRun(r));
  } finally {
    await fake.close();
  }
  return fake;
}

describe('real clients: the holes of issue 34 (items 1, 3, 4) are closed through their own tools', () => {
  const daemon = suiteDaemon();

  for (const client of CLIENT_NAMES) {
    describe(client, () => {
      let agent: Agent;
      let main = '';
      let wtA = '';
      let wtB = '';
      let pick = '';
      before(async () => {
        main = realpathSync(makeRepo(`coord-agent-holes-${client}-`));
        wtA = `${main}-wt-a`;
        wtB = `${main}-wt-b`;
        // A commit on another branch that changes src/a.ts, for the model to cherry-pick.
        git(main, 'checkout', '-qb', 'fix');
        writeFileSync(join(main, 'src/a.ts'), `${A2}\n`);
        git(main, 'commit', '-qam', 'a is 2');
        pick = git(main, 'rev-parse', 'HEAD');
        git(main, 'checkout', '-q', 'main');
        git(main, 'worktree', 'add', '-q', '-b', 'feat-a', wtA);
        git(main, 'worktree', 'add', '-q', '-b', 'feat-b', wtB);
        agent = await setUpAgent(client, main, daemon.stateDir);
        assert.equal(agent.setup.code, 0, describeRun(agent.setup));
        const board = boardForDir(main) ?? '';
        // alice holds src/a.ts (a lock), and src/b.ts of wt-a: she changed it there and her lock ended (a hold).
        const locked = await daemon.fetch('/v1/locks', {
          method: 'POST',
          json: { agent: 'alice', board, resources: ['src/a.ts'], lease_s: 600 },
        });
        assert.equal(locked.status, 201, await locked.text());
        const decided = await daemon.fetch('/v1/locks/decide', {
          method: 'POST',
          json: { agent: 'alice', board, paths: ['src/b.ts'], worktree: wtA },
        });
        const { lock_id } = (await decided.json()) as { lock_id: string };
        writeFileSync(join(wtA, 'src/b.ts'), 'export const b = 9;\n');
        const ended = await daemon.fetch(`/v1/locks/${lock_id}?agent=alice`, { method: 'DELETE' });
        assert.equal(ended.status, 200, await ended.text());
      });

      it(`${client}: (1) with COORD_AGENT="bob smith" (a name the daemon does not accept) its edit is refused saying why, not allowed as if the daemon were down`, async (t) => {
        const fake = await run(agent, main, editSteps(client, main, 'README.md', '# scratch', '# bob was here'), {
          env: { COORD_AGENT: 'bob smith' },
        });
        const told = editResult(client, fake)?.text ?? '(no edit result)';
        t.diagnostic(`${client} was told: ${JSON.stringify(told)}`);
        assert.match(told, /invalid_request: coord does not accept the agent name "bob smith"/);
        assert.equal(readFileSync(join(main, 'README.md'), 'utf8'), '# scratch\n', 'README.md unchanged');
      });

      it(`${client}: (3) \`git cherry-pick\` through its shell tool, changing src/a.ts that alice holds, is reported to the model with how to put it back`, async (t) => {
        const fake = await run(agent, main, [SHELL[client](`git cherry-pick ${pick}`)], {
          extraArgs: client === 'claude' ? ['--allowedTools', 'Bash'] : [],
          codexFullAccess: true,
        });
        const told = JSON.stringify(fake.turns().map((x) => x.body));
        const m =
          /lock_conflict: your command changed src\/a\.ts, which alice holds — put it back as it was before your command moved HEAD \(git checkout [0-9a-f]{12} -- src\/a\.ts, then commit\)/.exec(
            told,
          );
        t.diagnostic(`${client}: ${m ? m[0] : told.slice(-2000)}`);
        assert.ok(m, `the model was told: ${JSON.stringify(fake.results()).slice(-3000)}`);
        // The command did run (a shell hook reports after the fact): HEAD moved and the held file changed with it.
        assert.equal(readFileSync(join(main, 'src/a.ts'), 'utf8'), `${A2}\n`);
        assert.equal(git(main, 'status', '--porcelain', '--', 'src/a.ts'), '', 'src/a.ts is as HEAD has it');
      });

      it(`${client}: (4) working in wt-b, its edit of ../wt-a/src/b.ts (by path) is refused with wt-a's hold`, async (t) => {
        const rel = join('..', basename(wtA), 'src', 'b.ts');
        // The client lets its tools reach wt-a (so a refusal is coord's, not the client's workspace rule).
        const extraArgs =
          client === 'claude'
            ? ['--add-dir', wtA]
            : client === 'gemini'
              ? ['--include-directories', wtA]
              : ['-c', `sandbox_workspace_write.writable_roots=[${JSON.stringify(wtA)}]`];
        const fake = await run(agent, wtB, editSteps(client, wtB, rel, 'export const b = 9;', 'export const b = 2;'), {
          extraArgs,
        });
        const told = editResult(client, fake)?.text ?? '(no edit result)';
        t.diagnostic(`${client} was told: ${JSON.stringify(told)}`);
        assert.match(
          told,
          new RegExp(
            `lock_conflict: src/b\\.ts has changes not merged yet in worktree \\S*/${basename(wtA)} \\(branch feat-a, by alice\\)`,
          ),
        );
        assert.equal(readFileSync(join(wtA, 'src/b.ts'), 'utf8'), 'export const b = 9;\n', "wt-a's file unchanged");
        assert.equal(readFileSync(join(wtB, 'src/b.ts'), 'utf8'), `${B1}\n`);
      });
    });
  }
});
