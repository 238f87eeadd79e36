/**
 * SPEC §18: the headless profiles of Qwen Code, Copilot CLI and OpenCode (Kilo) — how each is launched for one
 * agent (coord's MCP server and hooks for that process only, files only in the launch's own folder) and what
 * `read` makes of each line the real client printed (fixtures/ holds lines captured from the real clients
 * driven by the fake model: Qwen Code 0.24.4, Copilot CLI 1.0.102, OpenCode 1.18.33).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { profileOf } from '../../src/clients/index.js';
import type { ClientEvent, HeadlessProfile, HeadlessSpec, StreamSignal } from '../../src/clients/profile.js';
import { waitOf } from '../../src/clients/stream-lines.js';

const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean);

const headless = (kind: string): HeadlessProfile => {
  const h = profileOf(kind as 'qwen').headless;
  assert.ok(h, `${kind} has a headless profile`);
  return h;
};

const readAll = (h: HeadlessProfile, lines: string[]): StreamSignal[] => lines.flatMap((l) => h.read(l));

const spec = (over: Partial<HeadlessSpec> = {}): HeadlessSpec => ({
  prompt: 'coord task #7 (claim c1): do it',
  cwd: '/work/repo.worktrees/7',
  mcp: { command: '/usr/bin/node', args: ['/opt/coord/bin/coord.js', 'mcp', '--client', 'x'] },
  hook: (e: ClientEvent) => `/usr/bin/node /opt/coord/bin/coord-hook.cjs hook ${e} --client x`,
  hookArgv: (e: ClientEvent) => ['/usr/bin/node', '/opt/coord/bin/coord-hook.cjs', 'hook', e],
  mark: (e: ClientEvent) => `hook ${e} --client x`,
  pluginModule: (n) => `file:///opt/coord/dist/plugins/${n}.js`,
  gitCommonDir: '/work/repo/.git',
  configDir: '/tmp/coord-run-abc',
  coordEnv: { COORD_AGENT: 'x#1', COORD_CLAIM: 'c1' },
  scratch: '/tmp/coord-state/run/x_1',
  ...over,
});

/** The total usage the supervisor sums from a stream's result signals. */
const usage = (signals: StreamSignal[]) =>
  signals.reduce(
    (a, s) =>
      s.kind === 'result'
        ? { input: a.input + (s.input_tokens ?? 0), output: a.output + (s.output_tokens ?? 0), results: a.results + 1 }
        : a,
    { input: 0, output: 0, results: 0 },
  );

describe('headless profiles of Qwen Code, Copilot CLI and OpenCode', () => {
  for (const kind of ['qwen', 'copilot', 'opencode', 'kilo']) {
    it(`${kind}: a launch writes files only inside its own folder and none into the work tree`, () => {
      const launch = headless(kind).launch(spec());
      assert.ok((launch.files ?? []).length > 0);
      for (const f of launch.files ?? []) assert.ok(f.path.startsWith('/tmp/coord-run-abc/'), f.path);
      assert.ok(!JSON.stringify(launch.env).includes('/work/repo'), JSON.stringify(launch.env));
      assert.ok(launch.args.includes('coord task #7 (claim c1): do it'), 'the prompt is passed');
      // coord's MCP server reaches the process (an argument, or a config file in the launch's folder).
      const all = JSON.stringify(launch);
      assert.ok(all.includes('/opt/coord/bin/coord.js'), 'coord mcp is configured');
    });
    it(`${kind}: a launch without a folder of its own is refused rather than writing elsewhere`, () => {
      assert.throws(() => headless(kind).launch(spec({ configDir: undefined })), /folder/);
    });
  }

  it('qwen: hooks come in a system-defaults settings file (pre-edit, shell, session start, stop), MCP inline and trusted', () => {
    const launch = headless('qwen').launch(spec());
    const path = launch.env.QWEN_CODE_SYSTEM_DEFAULTS_PATH;
    const file = launch.files?.find((f) => f.path === path);
    assert.ok(file, 'the settings file is the one the variable names');
    const hooks = (
      JSON.parse(file.content) as { hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> }
    ).hooks;
    assert.deepEqual(Object.keys(hooks).sort(), ['PostToolUse', 'PreToolUse', 'SessionStart', 'Stop']);
    assert.equal(hooks.PreToolUse?.[0]?.matcher, 'edit|write_file');
    assert.match(hooks.PreToolUse?.[0]?.hooks[0]?.command ?? '', /hook pre-edit/);
    const mcp = JSON.parse(launch.args[launch.args.indexOf('--mcp-config') + 1] ?? '{}');
    assert.equal(mcp.mcpServers.coord.trust, true);
    assert.deepEqual(
      launch.args.slice(launch.args.indexOf('--approval-mode'), launch.args.indexOf('--approval-mode') + 4),
      ['--approval-mode', 'auto-edit', '--allowed-tools', 'run_shell_command(git)'],
    );
    const chosen = headless('qwen').launch(spec({ permissionMode: 'yolo', maxTurns: 9, resume: 's-1' })).args;
    assert.ok(!chosen.includes('--allowed-tools'));
    assert.deepEqual(chosen.slice(chosen.indexOf('--approval-mode')), [
      '--approval-mode',
      'yolo',
      '--max-session-turns',
      '9',
      '--resume',
      's-1',
    ]);
  });

  it('qwen: reads the session, each turn, and the final usage from its stream-json lines', () => {
    const signals = readAll(headless('qwen'), fixture('qwen-headless.jsonl'));
    const session = signals.find((s) => s.kind === 'session');
    assert.ok(session?.kind === 'session' && /^[0-9a-f-]{36}$/.test(session.id));
    assert.equal(signals.filter((s) => s.kind === 'turn').length, 5);
    const results = signals.filter((s) => s.kind === 'result');
    assert.deepEqual(results, [
      { kind: 'result', input_tokens: 50, output_tokens: 25, cost_usd: null, is_error: false, text: 'done' },
    ]);
    assert.deepEqual(headless('qwen').read('Ripgrep not available: falling back'), []);
  });

  it('qwen: a run that ends on a 429 is read as a usage limit with the wait it names', () => {
    const line = JSON.stringify({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      error: { message: '429 Rate limit reached for requests. Please try again in 2m0s.' },
      usage: { input_tokens: 0, output_tokens: 0 },
    });
    const signals = headless('qwen').read(line);
    assert.deepEqual(
      signals.find((s) => s.kind === 'retry'),
      { kind: 'retry', status: 429, delayMs: 120_000 },
    );
    assert.equal(signals.find((s) => s.kind === 'result')?.kind, 'result');
  });

  it('copilot: hooks come in a plugin of the launch folder (Claude Code format), MCP added inline, git and edits allowed', () => {
    const launch = headless('copilot').launch(spec());
    const dir = launch.args[launch.args.indexOf('--plugin-dir') + 1];
    assert.equal(dir, '/tmp/coord-run-abc/copilot-plugin');
    const manifest = JSON.parse(launch.files?.find((f) => f.path === join(dir, 'plugin.json'))?.content ?? '{}');
    assert.equal(manifest.hooks, 'hooks.json');
    const hooks = JSON.parse(launch.files?.find((f) => f.path === join(dir, 'hooks.json'))?.content ?? '{}').hooks;
    assert.equal(hooks.PreToolUse[0].matcher, 'edit|create');
    assert.match(hooks.PreToolUse[0].bash, /hook pre-edit/);
    const mcp = JSON.parse(launch.args[launch.args.indexOf('--additional-mcp-config') + 1] ?? '{}');
    assert.equal(mcp.mcpServers.coord.command, '/usr/bin/node');
    for (const a of ['--allow-tool=write', '--allow-tool=shell(git:*)', '--allow-tool=coord'])
      assert.ok(launch.args.includes(a), a);
    assert.ok(!launch.args.includes('--allow-all'));
    const all = headless('copilot').launch(spec({ permissionMode: 'allow-all', resume: 'abc' })).args;
    assert.ok(all.includes('--allow-all') && !all.includes('--allow-tool=write') && all.includes('--resume=abc'));
    const plan = headless('copilot').launch(spec({ permissionMode: 'plan' })).args;
    assert.deepEqual(plan.slice(plan.indexOf('--mode'), plan.indexOf('--mode') + 2), ['--mode', 'plan']);
  });

  it('copilot: reads each turn and, from its last line, the session and a clean exit (it reports no tokens)', () => {
    const signals = readAll(headless('copilot'), fixture('copilot-headless.jsonl'));
    assert.equal(signals.filter((s) => s.kind === 'turn').length, 4);
    assert.deepEqual(
      signals.filter((s) => s.kind === 'session'),
      [{ kind: 'session', id: '1ebbdabe-80d8-43cd-b1ff-92976fd71217' }],
    );
    assert.deepEqual(
      signals.filter((s) => s.kind === 'result'),
      [{ kind: 'result', input_tokens: null, output_tokens: null, cost_usd: null, is_error: false, text: null }],
    );
  });

  it("copilot: a 429 the model API answered is read as a usage limit with the API's wait", () => {
    const signals = readAll(headless('copilot'), fixture('copilot-429.jsonl'));
    const retries = signals.filter((s) => s.kind === 'retry');
    assert.ok(retries.length > 0);
    for (const r of retries) assert.deepEqual(r, { kind: 'retry', status: 429, delayMs: 120_000 });
  });

  it('copilot: tokens are read from its per-call usage events where the provider reports them', () => {
    const line = JSON.stringify({
      type: 'assistant.usage',
      data: { model: 'gpt-4.1', inputTokens: 100, outputTokens: 20, cacheReadTokens: 50 },
      ephemeral: true,
    });
    assert.deepEqual(headless('copilot').read(line), [
      { kind: 'result', input_tokens: 150, output_tokens: 20, cost_usd: null, is_error: false, text: null },
    ]);
  });

  it("opencode: its config (MCP server, coord's plugin loader) is one file named by OPENCODE_CONFIG; kilo's by KILO_CONFIG", () => {
    for (const [kind, variable, bin] of [
      ['opencode', 'OPENCODE_CONFIG', 'opencode'],
      ['kilo', 'KILO_CONFIG', 'kilo'],
    ] as const) {
      const launch = headless(kind).launch(spec());
      assert.equal(launch.args[0], 'run');
      const config = launch.files?.find((f) => f.path === launch.env[variable]);
      assert.ok(config, `${kind}: ${variable} names the config file`);
      const c = JSON.parse(config.content);
      assert.deepEqual(c.mcp.coord.command.slice(0, 2), ['/usr/bin/node', '/opt/coord/bin/coord.js']);
      const loader = launch.files?.find((f) => `file://${f.path}` === c.plugin[0]);
      assert.ok(loader, `${kind}: the plugin named is the loader written beside it`);
      assert.match(loader.content, /file:\/\/\/opt\/coord\/dist\/plugins\/opencode\.js/);
      assert.match(loader.content, /coord-hook\.cjs/);
      assert.equal(headless(kind).bin, bin);
    }
    assert.ok(
      headless('opencode')
        .launch(spec({ permissionMode: 'auto' }))
        .args.includes('--auto'),
    );
    const plan = headless('opencode').launch(spec({ permissionMode: 'plan', resume: 'ses_1' })).args;
    assert.deepEqual(plan.slice(-4), ['--agent', 'plan', '--session', 'ses_1']);
  });

  it('opencode: reads the session, each step, and sums the tokens of every step (it has no final result event)', () => {
    const signals = readAll(headless('opencode'), fixture('opencode-headless.jsonl'));
    const sessions = new Set(signals.flatMap((s) => (s.kind === 'session' ? [s.id] : [])));
    assert.deepEqual([...sessions], ['ses_dc420c7a9ffeJLx75r7oOt9dH5']);
    assert.equal(signals.filter((s) => s.kind === 'turn').length, 5);
    assert.deepEqual(usage(signals), { input: 50, output: 25, results: 5 });
  });

  it('opencode: a 429 it logs on stderr (it retries by itself, silent on stdout) is read as a usage limit with its wait', () => {
    const h = headless('opencode');
    const lines = fixture('opencode-429.log');
    assert.ok(lines.length > 0);
    for (const line of lines) assert.deepEqual(h.readErr?.(line), [{ kind: 'retry', status: 429, delayMs: 120_000 }]);
    assert.deepEqual(h.readErr?.('timestamp=x level=INFO message="rate limit settings loaded"'), []);
    assert.ok(h.launch(spec()).args.includes('--print-logs'));
  });

  it('waits named by model APIs are read in their usual spellings', () => {
    assert.equal(waitOf('Please try again in 2m0s.'), 120_000);
    assert.equal(waitOf('Retry-After: 120'), 120_000);
    assert.equal(waitOf('usage limit; resets in 1h 5m'), 3_900_000);
    assert.equal(waitOf('retry after 500ms'), 500);
    assert.equal(waitOf('429 Too Many Requests'), null);
  });
});
