/**
 * One agent, one name, even with no client process above the hook (issue 25 hole 4): a client running
 * as PID 1 — a container's entrypoint — is still the process its hooks and its MCP server both descend
 * from; and when nothing but shells leads up to PID 1, a stable fallback names the session. Either way
 * an edit of a file another agent holds is refused, never "allowed unchecked" (COORD_GUARD=strict
 * included). Run in a fresh PID namespace (`unshare --pid --fork --mount-proc`) where the machine allows
 * it; skipped where it does not.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { tempDir } from '../support/ctx.js';
import { childEnv, ROOT, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';
import { runCoord } from './run-hook.js';

const canUnshare = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0;
const TSX = import.meta.resolve('tsx');
const MAIN = join(ROOT, 'src/main.ts');

/** Each step's output goes to a file: PID 1 and everything under it are the processes under test. */
const SCRIPT = [
  'printf "%s" "$HOOK_IN" | sh -c "$HOOK_CMD" >"$DIR/out" 2>"$DIR/err"',
  'echo $? >"$DIR/code"',
  'sh -c "$MCP_CMD" >"$DIR/mcp"',
  'exit 0',
].join('; ');

/**
 * Runs a hook (through `sh -c`, as clients do) and what `coord mcp --client codex` would call itself,
 * under PID 1 of a new PID namespace: `node` (a client process at PID 1) or `sh` (nothing but shells).
 */
function inNamespace(pid1: 'node' | 'sh', hookArgs: string[], stdin: unknown, env: NodeJS.ProcessEnv) {
  const dir = tempDir('coord-pid1-');
  const words = (argv: string[]) => argv.map((w) => `'${w}'`).join(' ');
  const identity = `import(${JSON.stringify(join(ROOT, 'src/client/agent-identity.ts'))}).then((m) => console.log(m.identify("codex", process.env, { side: "mcp" })?.agent ?? ""))`;
  const argv =
    pid1 === 'node'
      ? [
          process.execPath,
          '-e',
          `require('node:child_process').spawnSync('sh', ['-c', ${JSON.stringify(SCRIPT)}], { stdio: 'inherit' })`,
        ]
      : ['sh', '-c', SCRIPT];
  const r = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', ...argv], {
    env: childEnv({
      COORD_AGENT: '',
      CLAUDE_CODE_SESSION_ID: '',
      COORD_BOARD: '',
      ...env,
      DIR: dir,
      HOOK_IN: JSON.stringify(stdin),
      HOOK_CMD: words([process.execPath, '--import', TSX, MAIN, ...hookArgs]),
      MCP_CMD: words([process.execPath, '--import', TSX, '-e', identity]),
    }),
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return { code: Number(read('code')), stdout: read('out'), stderr: read('err'), mcp: read('mcp').trim() };
}

describe('identity without a client process above the hook', {
  skip: !canUnshare && 'unshare --pid is not permitted here',
}, () => {
  let d: SpawnedDaemon;
  let repo: string;
  before(async () => {
    d = await spawnDaemon();
    repo = repoWithWorktrees(0).main;
    const held = await runCoord(['lock', 'src/held.ts', '--agent', 'alice', '--state', d.stateDir], { cwd: repo });
    assert.equal(held.code, 0, held.stderr);
  });
  after(async () => {
    await d.stop();
  });

  const patch = (file: string) => ({
    hook_event_name: 'PreToolUse',
    cwd: repo,
    tool_name: 'apply_patch',
    tool_input: { command: `*** Begin Patch\n*** Update File: ${file}\n@@\n-a\n+b\n*** End Patch\n` },
  });
  const args = () => ['hook', 'pre-edit', '--client', 'codex', '--state', d.stateDir];

  for (const guard of ['', 'strict']) {
    test(`a Codex running as PID 1 is refused an edit of a file alice holds${guard ? ' (COORD_GUARD=strict)' : ''}, naming alice`, () => {
      const r = inNamespace('node', args(), patch('src/held.ts'), { COORD_GUARD: guard });
      assert.doesNotMatch(r.stderr, /unchecked/);
      const out = JSON.parse(r.stdout || '{}').hookSpecificOutput;
      assert.equal(out?.permissionDecision, 'deny', `${r.stdout}\n${r.stderr}`);
      assert.match(out.permissionDecisionReason, /^lock_conflict: src\/held\.ts is held by alice/);
    });
  }

  test('a free file edited by a Codex running as PID 1 is auto-locked for the agent its MCP server names', async () => {
    const r = inNamespace('node', args(), patch('src/free-pid1.ts'), {});
    assert.equal(r.code, 0, r.stderr);
    const locks = ((await (await d.fetch(`/v1/locks?board=${boardForDir(repo)}`)).json()) as { locks: any[] }).locks;
    const lock = locks.find((l) => l.resources.includes('src/free-pid1.ts'));
    assert.match(r.mcp, /^codex#[0-9a-f]{6}$/);
    assert.equal(lock?.agent, r.mcp);
  });

  test('with only shells up to PID 1, a stable fallback names the session: the held file is still refused, under strict too', () => {
    for (const guard of ['', 'strict']) {
      const r = inNamespace('sh', args(), patch('src/held.ts'), { COORD_GUARD: guard });
      assert.doesNotMatch(r.stderr, /unchecked/);
      const out = JSON.parse(r.stdout || '{}').hookSpecificOutput;
      assert.equal(out?.permissionDecision, 'deny', `${r.stdout}\n${r.stderr}`);
      assert.match(r.mcp, /^codex#[0-9a-f]{6}$/);
    }
  });
});
