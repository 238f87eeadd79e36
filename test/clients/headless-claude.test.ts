/**
 * SPEC §18 "Supervised": what Claude Code's headless event stream (`-p --output-format stream-json`) tells the
 * supervisor — here the calls its permission mode refused, which headless has no one to ask about.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { claude } from '../../src/clients/claude.js';

const h = claude.headless;
if (!h) throw new Error('claude has a headless profile');

describe("Claude Code's headless stream", () => {
  it("a result's permission_denials become refused calls, named by command or path", () => {
    const result = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'I could not run the tests.',
      usage: { input_tokens: 10, output_tokens: 5 },
      permission_denials: [
        { tool_name: 'Bash', tool_use_id: 't1', tool_input: { command: 'npm test', description: 'tests' } },
        { tool_name: 'Write', tool_use_id: 't2', tool_input: { file_path: '/repo/.env', content: 'x' } },
        { tool_name: 'WebFetch', tool_use_id: 't3', tool_input: {} },
      ],
    });
    const refused = h.read(result).filter((s) => s.kind === 'refused');
    assert.deepEqual(refused, [
      { kind: 'refused', tool: 'Bash(npm test)' },
      { kind: 'refused', tool: 'Write(/repo/.env)' },
      { kind: 'refused', tool: 'WebFetch' },
    ]);
  });

  it('a result with no denials refuses nothing, and a line that is not JSON says nothing', () => {
    const result = JSON.stringify({ type: 'result', is_error: false, result: 'done', permission_denials: [] });
    assert.deepEqual(
      h.read(result).map((s) => s.kind),
      ['result'],
    );
    assert.deepEqual(h.read('Loading…'), []);
  });
});

describe("Claude Code's headless launch", () => {
  const spec = {
    prompt: 'coord task #t1',
    cwd: '/repo.worktrees/t1',
    mcp: { command: '/usr/bin/node', args: ['/coord/bin/coord-hook.cjs', 'mcp', '--client', 'claude'] },
    hook: (event: string) => `/usr/bin/node /coord/bin/coord-hook.cjs hook ${event} --client claude`,
    mark: (event: string) => `hook ${event} --client claude`,
    gitCommonDir: '/repo/.git',
    coordEnv: { COORD_AGENT: 'claude#1' },
    scratch: '/state/run/claude_1',
  };
  const site = { url: (event: string) => `http://127.0.0.1:7777/v1/hooks/claude/${event}`, key: 'sekrit-hook-key' };

  it("with the daemon's hook site the shell hook after a command posts to it (none before), and the hook key is in a file of the launch only, never an argument", () => {
    const launch = h.launch({ ...spec, configDir: '/tmp/coord-run-x', httpHook: site });
    assert.ok(!launch.args.some((a) => a.includes(site.key)), 'the hook key is in the arguments');
    const at = launch.args.indexOf('--settings');
    assert.equal(launch.args[at + 1], '/tmp/coord-run-x/settings.json');
    const file = launch.files?.find((f) => f.path === '/tmp/coord-run-x/settings.json');
    assert.ok(file, 'the settings file is written');
    const settings = JSON.parse(file.content);
    const bash = settings.hooks.PostToolUse.find((g: { matcher?: string }) => g.matcher === 'Bash');
    assert.equal(bash.hooks[0].type, 'http');
    assert.equal(bash.hooks[0].url, site.url('post-shell'));
    assert.equal(bash.hooks[0].headers.Authorization, `Bearer ${site.key}`);
    // No hook before a Bash call: the daemon compares each command with its latest look at the work tree
    // (taken when coord run reports the agent starting, then after each command: server/shell-check.ts).
    assert.deepEqual(
      settings.hooks.PreToolUse.map((g: { matcher?: string }) => g.matcher),
      ['Edit|Write|MultiEdit|NotebookEdit'],
    );
    // The edit hook stays the session's own MCP server's; the stop hook posts too; session start stays a command.
    assert.equal(settings.hooks.PreToolUse[0].hooks[0].type, 'mcp_tool');
    assert.equal(settings.hooks.Stop[0].hooks[0].type, 'http');
    assert.equal(settings.hooks.Stop[0].hooks[0].url, site.url('stop'));
    // The first prompt says what prime would at start-up: prime runs on a resumed, cleared or compacted session.
    assert.equal(settings.hooks.SessionStart[0].matcher, 'resume|clear|compact');
  });

  it('without a hook site (or a folder of its own) the shell hooks are commands, given in the arguments', () => {
    for (const launch of [h.launch(spec), h.launch({ ...spec, httpHook: site })]) {
      assert.ok(!launch.args.some((a) => a.includes(site.key)));
      const settings = JSON.parse(launch.args[launch.args.indexOf('--settings') + 1] ?? '');
      assert.equal(settings.hooks.PostToolUse[0].hooks[0].type, 'command');
      assert.equal(settings.hooks.PreToolUse[1].hooks[0].type, 'command', 'the look before a command is a hook');
      assert.deepEqual(launch.files ?? [], []);
    }
  });
});
