/**
 * What a command hook costs per edit (SPEC §10, issue 25): `coord hook pre-edit` as Codex, Gemini CLI
 * and Cursor run it — a fresh Node process that reads the edit on stdin, finds the work tree and asks
 * the daemon once (decide_edit) — against a bare `node -e 0` hook given the same stdin, spawned the
 * same way from this process. The edit is of a file the agent already holds (the common repeated edit).
 * coord: median wall time of `node bin/coord-hook.cjs hook pre-edit --client claude` (the command `coord setup`
 *   writes; the build's one-file hook bundle).
 * floor: median wall time of `node -e 0`.
 * extra.shell_added_ms: the pre-shell + post-shell hooks around one shell command in a 10,000-file
 *   repository, less two bare `node -e 0` (what the shell hooks add beyond starting Node twice).
 * extra.http_shell_ms: the same two hooks as Claude Code's `http` hooks (its user-scope setup): two POSTs of
 *   the hook input to the daemon, which takes git's looks itself — all they add to the shell command (the raw
 *   floor is the command alone: no hook). extra.git_status_ms: one `git status --untracked-files=all` there,
 *   the work the post hook cannot skip. Target for the shell hooks: ~50 ms added.
 * Where http_shell_ms goes (issue 34): extra.http_posts_ms, the same two POSTs with `Coord-Guard: off` (the route
 *   answers before any look: connection, auth, route, answer); extra.git_look_ms, one `git status
 *   --untracked-files=no` (the walk of every tracked file's lstat that each of the two looks does).
 * extra.paired_ratio: the hook's median over the median of a bare `node -e 0` run right after each hook run.
 * target: ≤ 1.3× the bare hook.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hookPath } from '../../src/api/paths.js';
import { hookKeyOf } from '../../src/state-dir/token.js';
import { COORD_HOOK_BIN, startCoordDaemon } from '../coord/daemon.js';
import { pick } from '../lib/config.js';
import { median } from '../lib/stats.js';
import { tempDir } from '../lib/template-db.js';
import { defineScenario } from '../lib/types.js';

const EDITS = pick(10, 20);
const SHELL_FILES = 10_000;

function timed(args: string[], stdin: string, env: NodeJS.ProcessEnv = {}, cwd?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, {
      stdio: ['pipe', 'ignore', 'pipe'],
      env: { ...process.env, ...env },
      ...(cwd ? { cwd } : {}),
    });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`exit ${code}: ${err.slice(0, 300)}`)),
    );
    child.stdin.end(stdin);
  });
}

function gitRepo(files: number): string {
  const dir = tempDir('coord-bench-repo-');
  const git = (...a: string[]) =>
    execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@e', ...a], { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  for (let i = 0; i < files; i++) {
    const sub = join(dir, 'src', `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.ts`), `export const x${i} = ${i};\n`);
  }
  git('add', '.');
  git('commit', '-q', '-m', 'seed');
  return dir;
}

let small = '';
let big = '';

export default defineScenario({
  name: 'per-edit cost of the command hook (pre-edit) vs a bare node -e 0 hook',
  metric: 'median wall time per hook run',
  unit: 'ms',
  better: 'lower',
  target: { kind: 'ratio_to_floor_max', value: 1.3 },
  note: `${EDITS} runs per round, each a fresh process fed the client's JSON on stdin; the agent already holds the file; extra.paired_ratio: against a node -e 0 run after each hook run; extra.shell_added_ms: pre-shell + post-shell around one command in a ${SHELL_FILES.toLocaleString('en')}-file repository, less two bare node -e 0; extra.http_shell_ms: the same as Claude Code's http hooks (two POSTs, the daemon looks itself; target ~50 ms); extra.git_status_ms: one git status there`,
  async setup() {
    small = gitRepo(3);
    big = gitRepo(SHELL_FILES);
  },
  contenders: {
    coord: async () => {
      const d = await startCoordDaemon();
      const env = { CLAUDE_CODE_SESSION_ID: 'bench-session', COORD_AGENT: '', COORD_BOARD: '', COORD_GUARD: '' };
      try {
        const edit = JSON.stringify({
          hook_event_name: 'PreToolUse',
          cwd: small,
          tool_name: 'Edit',
          tool_input: { file_path: join(small, 'src/d0/f0.ts') },
        });
        const hook = [COORD_HOOK_BIN, 'hook', 'pre-edit', '--client', 'claude', '--state', d.stateDir];
        await timed(hook, edit, env); // the first edit takes the auto-lock
        const xs: number[] = [];
        // A bare `node -e 0` after each hook run, for a ratio taken run by run (the machine's load moves less
        // between two neighbouring runs than between the contenders' blocks).
        const paired: number[] = [];
        for (let i = 0; i < EDITS; i++) {
          xs.push(await timed(hook, edit, env));
          paired.push(await timed(['-e', '0'], edit));
        }
        // Shell hooks in the big repository: one file changed by the "command" between them.
        const shell = (event: string) =>
          timed(
            [COORD_HOOK_BIN, 'hook', event, '--client', 'claude', '--state', d.stateDir],
            JSON.stringify({ cwd: big, tool_name: 'Bash', tool_use_id: 'bench' }),
            env,
          );
        const sh: number[] = [];
        const bare: number[] = [];
        for (let i = 0; i < pick(3, 5); i++) {
          const pre = await shell('pre-shell');
          writeFileSync(join(big, 'src/d0/f0.ts'), `export const x0 = ${i + 1};\n`);
          sh.push(pre + (await shell('post-shell')));
          bare.push((await timed(['-e', '0'], '')) + (await timed(['-e', '0'], '')));
        }
        // Claude Code's http hooks: no process, the daemon looks itself (a fresh connection per POST, as Claude's).
        const key = hookKeyOf(d.token);
        const post = async (event: string, call: string, guard = '') => {
          const res = await fetch(d.url + hookPath('claude', event), {
            method: 'POST',
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': 'application/json',
              connection: 'close',
              ...(guard ? { 'coord-guard': guard } : {}),
            },
            body: JSON.stringify({ session_id: 'bench-session', cwd: big, tool_name: 'Bash', tool_use_id: call }),
          });
          if (res.status !== 200) throw new Error(`${event}: HTTP ${res.status} ${await res.text()}`);
          await res.text();
        };
        const http: number[] = [];
        const git: number[] = [];
        const posts: number[] = [];
        const look: number[] = [];
        const status = (untracked: string) => {
          const g0 = performance.now();
          execFileSync(
            'git',
            ['--no-optional-locks', 'status', '--porcelain=v2', '-z', `--untracked-files=${untracked}`],
            {
              cwd: big,
              stdio: 'ignore',
            },
          );
          return performance.now() - g0;
        };
        for (let i = 0; i < pick(5, 10); i++) {
          const t0 = performance.now();
          await post('pre-shell', `http-${i}`);
          const t1 = performance.now();
          writeFileSync(join(big, 'src/d1/f100.ts'), `export const x100 = ${i + 1};\n`);
          const t2 = performance.now();
          await post('post-shell', `http-${i}`);
          http.push(t1 - t0 + (performance.now() - t2));
          git.push(status('all'));
          look.push(status('no'));
          const p0 = performance.now();
          await post('pre-shell', `off-${i}`, 'off');
          await post('post-shell', `off-${i}`, 'off');
          posts.push(performance.now() - p0);
        }
        return {
          value: median(xs),
          extra: {
            paired_floor_ms: median(paired),
            paired_ratio: Math.round((median(xs) / median(paired)) * 1000) / 1000,
            shell_added_ms: median(sh) - median(bare),
            shell_ms: median(sh),
            http_shell_ms: median(http),
            git_status_ms: median(git),
            http_posts_ms: median(posts),
            git_look_ms: median(look),
          },
        };
      } finally {
        await d.stop();
      }
    },
    floor: async () => {
      const xs: number[] = [];
      const stdin = JSON.stringify({ hook_event_name: 'PreToolUse', cwd: small, tool_name: 'Edit', tool_input: {} });
      for (let i = 0; i < EDITS; i++) xs.push(await timed(['-e', '0'], stdin));
      return median(xs);
    },
  },
});
