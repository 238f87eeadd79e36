/**
 * SPEC §18: Gemini CLI's headless profile — coord's MCP server and hooks reach one `gemini -p` process through a
 * home of the launch's own (`GEMINI_CLI_HOME`): the person's settings with coord's part added, every other entry
 * of their `.gemini` linked, no file of theirs written; the task's work tree is trusted when their main work tree
 * is; and what `read` makes of the lines Gemini CLI 0.61.0 printed (fixtures/gemini-0.61.0.jsonl, captured from
 * the real client driven by the fake Gemini API).
 */
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseJsonc, trustedBy } from '../../src/clients/gemini-headless.js';
import { profileOf } from '../../src/clients/index.js';
import type { ClientEvent, HeadlessProfile, HeadlessSpec } from '../../src/clients/profile.js';

const h = profileOf('gemini').headless as HeadlessProfile;
const root = mkdtempSync(join(tmpdir(), 'coord-gemini-headless-'));
after(() => rmSync(root, { recursive: true, force: true }));

const spec = (scratch: string, over: Partial<HeadlessSpec> = {}): HeadlessSpec => ({
  prompt: 'coord task #7 (claim c1): do it',
  cwd: join(root, 'repo.worktrees', '7'),
  mcp: { command: '/usr/bin/node', args: ['/opt/coord/bin/coord.js', 'mcp', '--client', 'gemini'] },
  hook: (e: ClientEvent) => `/usr/bin/node /opt/coord/bin/coord-hook.cjs hook ${e} --client gemini`,
  mark: (e: ClientEvent) => `hook ${e} --client gemini`,
  gitCommonDir: join(root, 'repo', '.git'),
  configDir: join(root, 'config'),
  coordEnv: { COORD_AGENT: 'gemini#1', COORD_CLAIM: 'c1' },
  scratch,
  ...over,
});

/** Run `f` with the person's HOME (the profile reads the supervisor's own environment, as Gemini CLI would). */
function asPerson<T>(home: string, f: () => T): T {
  const saved = { HOME: process.env.HOME, GEMINI_CLI_HOME: process.env.GEMINI_CLI_HOME };
  const trust = process.env.GEMINI_CLI_TRUST_WORKSPACE;
  process.env.HOME = home;
  delete process.env.GEMINI_CLI_HOME;
  delete process.env.GEMINI_CLI_TRUST_WORKSPACE;
  try {
    return f();
  } finally {
    process.env.HOME = saved.HOME;
    if (saved.GEMINI_CLI_HOME !== undefined) process.env.GEMINI_CLI_HOME = saved.GEMINI_CLI_HOME;
    if (trust !== undefined) process.env.GEMINI_CLI_TRUST_WORKSPACE = trust;
  }
}

function person(name: string, files: Record<string, string>): string {
  const home = join(root, name);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(home, '.gemini', rel, '..'), { recursive: true });
    writeFileSync(join(home, '.gemini', rel), content);
  }
  return home;
}

describe("Gemini CLI's headless profile", () => {
  it("adds coord's MCP server and hooks to the person's own settings in a home of the launch's own, linking the rest and writing nothing of theirs", () => {
    const theirs = {
      'settings.json': `{
  // mine
  "security": { "auth": { "selectedType": "oauth-personal" } },
  "mcpServers": { "mine": { "command": "my-server" } },
  "hooks": { "BeforeTool": [
    { "matcher": "write_file", "hooks": [{ "type": "command", "command": "my-hook // not a comment" }] },
    { "matcher": "write_file|replace", "hooks": [{ "type": "command", "command": "node coord.js hook pre-edit --client gemini" }] }
  ] }
}
`,
      'oauth_creds.json': '{"token":"t"}\n',
      'tmp/abc/chats/session-1.json': '{}\n',
    };
    const home = person('p1', theirs);
    const scratch = join(root, 'state', 'gemini_1');
    const launch = asPerson(home, () => h.launch(spec(scratch, { resume: '30d03ba7' })));

    const own = join(scratch, 'gemini-home');
    assert.equal(launch.env.GEMINI_CLI_HOME, own);
    assert.deepEqual(
      launch.files?.map((f) => f.path),
      [join(own, '.gemini', 'settings.json')],
    );
    const settings = JSON.parse(launch.files?.[0]?.content ?? '{}');
    assert.deepEqual(settings.security, { auth: { selectedType: 'oauth-personal' } });
    assert.deepEqual(Object.keys(settings.mcpServers), ['mine', 'coord']);
    assert.equal(settings.mcpServers.coord.trust, true);
    assert.deepEqual(settings.mcpServers.coord.env, { COORD_AGENT: 'gemini#1', COORD_CLAIM: 'c1' });
    assert.equal(settings.hooks.BeforeTool[0].hooks[0].command, 'my-hook // not a comment');
    // coord's pre-edit hook of `coord setup gemini` gives way to this launch's: it runs once.
    assert.equal(JSON.stringify(settings.hooks.BeforeTool).match(/hook pre-edit --client gemini/g)?.length, 1);
    assert.match(JSON.stringify(settings.hooks.BeforeTool), /coord-hook\.cjs hook pre-edit --client gemini/);
    assert.match(JSON.stringify(settings.hooks.BeforeTool), /hook pre-shell --client gemini/);
    assert.deepEqual(settings.tools.allowed, ['run_shell_command(git)']);
    // Their credentials and sessions are theirs, linked (a resumed session is found where Gemini CLI keeps it).
    for (const name of ['oauth_creds.json', 'tmp']) {
      assert.ok(lstatSync(join(own, '.gemini', name)).isSymbolicLink(), name);
      assert.equal(readlinkSync(join(own, '.gemini', name)), join(home, '.gemini', name));
    }
    for (const [rel, content] of Object.entries(theirs))
      assert.equal(readFileSync(join(home, '.gemini', rel), 'utf8'), content, rel);
    assert.deepEqual(launch.args.slice(-2), ['--resume', '30d03ba7']);
    assert.ok(launch.args.includes('coord task #7 (claim c1): do it'));
    // A second launch of the same agent (a resume) finds its links in place.
    asPerson(home, () => h.launch(spec(scratch)));
  });

  it('passes a --permission-mode on as the approval mode, without the git allowance', () => {
    const home = person('p2', {});
    const launch = asPerson(home, () => h.launch(spec(join(root, 'state', 'p2'), { permissionMode: 'yolo' })));
    assert.deepEqual(launch.args.slice(-2), ['--approval-mode', 'yolo']);
    assert.equal(JSON.parse(launch.files?.[0]?.content ?? '{}').tools, undefined);
  });

  it("trusts the task's work tree when the person's trustedFolders.json trusts the main work tree, and only then", () => {
    const repo = join(root, 'repo');
    mkdirSync(repo, { recursive: true });
    const launchWith = (name: string, rules: Record<string, string>) => {
      const home = person(name, { 'trustedFolders.json': JSON.stringify(rules) });
      return asPerson(home, () => h.launch(spec(join(root, 'state', name)))).env.GEMINI_CLI_TRUST_WORKSPACE;
    };
    assert.equal(launchWith('t1', { [repo]: 'TRUST_FOLDER' }), 'true');
    assert.equal(launchWith('t2', { [join(root, 'elsewhere')]: 'TRUST_FOLDER' }), undefined);
    assert.equal(launchWith('t3', { [root]: 'TRUST_FOLDER', [repo]: 'DO_NOT_TRUST' }), undefined);
    assert.equal(launchWith('t4', { [join(root, 'sibling')]: 'TRUST_PARENT' }), 'true');
    assert.equal(trustedBy({ [`${repo}x`]: 'TRUST_FOLDER' }, repo), false, 'a prefix is not a parent');
  });

  it('reads the session, work, a call denied by policy and usage from the stream, and a 429 retry from stderr', () => {
    const lines = readFileSync(new URL('./fixtures/gemini-0.61.0.jsonl', import.meta.url), 'utf8')
      .split('\n')
      .filter(Boolean);
    const signals = lines.flatMap((l) => h.read(l));
    assert.deepEqual(signals[0], { kind: 'session', id: '30d03ba7-f312-45bf-bd35-1c3a30d423d0' });
    assert.ok(signals.some((s) => s.kind === 'turn'));
    // The recorded run's `touch made` was denied by policy: named by its tool, for the log and the note.
    assert.deepEqual(
      signals.filter((s) => s.kind === 'refused'),
      [{ kind: 'refused', tool: 'run_shell_command' }],
    );
    assert.deepEqual(signals.at(-1), {
      kind: 'result',
      input_tokens: 30,
      output_tokens: 15,
      cost_usd: null,
      is_error: false,
      text: null,
    });
    assert.deepEqual(
      h.readErr?.(
        'Attempt 1 failed with status 429. Retrying with backoff... _ApiError: {"error":{"message":"usage limit reached"}}',
      ),
      [{ kind: 'retry', status: 429, delayMs: null }],
    );
    assert.deepEqual(h.readErr?.('Ripgrep is not available. Falling back to GrepTool.'), []);
    assert.deepEqual(parseJsonc('{"a": "//x", /* b */ "c": [1] // d\n}'), { a: '//x', c: [1] });
  });
});
