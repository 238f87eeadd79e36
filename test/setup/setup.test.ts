/**
 * `coord setup <client> --write|--remove` against a home full of the user's own settings: what it adds,
 * that a second run leaves every file byte-identical, and that --remove restores each one exactly.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { runCoord } from '../hooks/run-hook.js';
import { tempDir } from '../support/ctx.js';
import { ROOT } from '../support/daemon.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';

const PRIOR: Record<string, string> = {
  '.claude.json': `${JSON.stringify({ numStartups: 3, mcpServers: { other: { command: 'other-mcp' } } }, null, 2)}\n`,
  '.claude/settings.json': `${JSON.stringify(
    {
      permissions: { allow: ['Bash(ls)'] },
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-bash-check' }] }] },
    },
    null,
    2,
  )}\n`,
  '.claude/CLAUDE.md': '# My notes\n\nAlways run the tests.\n',
  '.codex/config.toml': 'model = "gpt-5.5"\n\n[profiles.fast]\nmodel = "gpt-5.5-mini"\n',
  '.gemini/settings.json': '{\n  "theme": "dark"\n}\n',
  '.copilot/mcp-config.json': `${JSON.stringify({ mcpServers: { other: { type: 'local', command: 'other-mcp' } } }, null, 2)}\n`,
  '.config/opencode/opencode.json': '{\n  "theme": "opencode"\n}\n',
  '.config/kilo/kilo.json': '{\n  "theme": "kilo"\n}\n',
  '.qwen/settings.json': `${JSON.stringify({ security: { auth: { selectedType: 'openai' } } }, null, 2)}\n`,
  '.cline/data/settings/cline_mcp_settings.json': `${JSON.stringify({ mcpServers: { other: { command: 'other-mcp' } } }, null, 2)}\n`,
  '.pi/agent/AGENTS.md': '# Mine\n\nBe brief.\n',
};

function home(): string {
  const h = tempDir('coord-home-');
  for (const [rel, text] of Object.entries(PRIOR)) {
    mkdirSync(dirname(join(h, rel)), { recursive: true });
    writeFileSync(join(h, rel), text);
  }
  return h;
}

const snapshot = (dir: string, files: string[]) =>
  Object.fromEntries(files.map((f) => [f, existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : null]));

const FILES = {
  claude: ['.claude.json', '.claude/settings.json', '.claude/CLAUDE.md'],
  codex: ['.codex/config.toml', '.codex/AGENTS.md'],
  gemini: ['.gemini/settings.json', '.gemini/GEMINI.md'],
  copilot: ['.copilot/mcp-config.json', '.copilot/hooks/coord.json', '.copilot/copilot-instructions.md'],
  opencode: ['.config/opencode/opencode.json', '.config/opencode/plugins/coord.js', '.config/opencode/AGENTS.md'],
  kilo: ['.config/kilo/kilo.json', '.config/kilo/plugins/coord.js', '.config/kilo/AGENTS.md'],
  qwen: ['.qwen/settings.json', '.qwen/QWEN.md'],
  cline: ['.cline/data/settings/cline_mcp_settings.json', '.cline/plugins/coord.js', '.cline/rules/coord.md'],
  pi: ['.pi/agent/extensions/coord.ts', '.pi/agent/AGENTS.md'],
};

describe('coord setup', () => {
  const setup = (h: string, cwd: string, ...args: string[]) =>
    runCoord(['setup', ...args, '--state', join(h, 'state')], {
      cwd,
      env: {
        HOME: h,
        CODEX_HOME: join(h, '.codex'),
        CLAUDE_CONFIG_DIR: '',
        COORD_CODEX_BIN: join(h, 'no-codex-here'),
        // Nothing of the tester's own client homes.
        XDG_CONFIG_HOME: join(h, '.config'),
        COPILOT_HOME: '',
        CLINE_DIR: '',
        CLINE_DATA_DIR: '',
        CLINE_MCP_SETTINGS_PATH: '',
        PI_CODING_AGENT_DIR: '',
      },
    });

  for (const client of ['claude', 'codex', 'gemini', 'copilot', 'opencode', 'kilo', 'qwen', 'cline', 'pi'] as const) {
    test(`${client}: --write adds coord and keeps the user's settings; twice is byte-identical; --remove restores every file`, async () => {
      const h = home();
      const files = FILES[client];
      const before = snapshot(h, files);
      const first = await setup(h, ROOT, client, '--write');
      assert.equal(first.code, 0, first.stderr);
      const written = snapshot(h, files);
      for (const f of files) assert.notEqual(written[f], before[f], `${f} written`);
      const second = await setup(h, ROOT, client, '--write');
      assert.equal(second.code, 0, second.stderr);
      assert.deepEqual(snapshot(h, files), written, 'a second --write changes nothing');
      assert.match(second.stdout, /unchanged/);
      const removed = await setup(h, ROOT, client, '--remove');
      assert.equal(removed.code, 0, removed.stderr);
      assert.deepEqual(snapshot(h, files), before, '--remove restores every file');
    });
  }

  test('claude: the MCP server, the three hooks and the permission go where Claude Code reads them', async () => {
    const h = home();
    assert.equal((await setup(h, ROOT, 'claude', '--write')).code, 0);
    const mcp = JSON.parse(readFileSync(join(h, '.claude.json'), 'utf8'));
    assert.equal(mcp.numStartups, 3);
    assert.equal(mcp.mcpServers.other.command, 'other-mcp');
    assert.equal(mcp.mcpServers.coord.type, 'stdio');
    assert.deepEqual(mcp.mcpServers.coord.args.slice(1, 4), ['mcp', '--client', 'claude']);
    const settings = JSON.parse(readFileSync(join(h, '.claude/settings.json'), 'utf8'));
    assert.deepEqual(settings.permissions.allow, ['Bash(ls)', 'mcp__coord']);
    assert.equal(settings.hooks.PreToolUse[0].hooks[0].command, 'my-bash-check');
    assert.equal(settings.hooks.PreToolUse[1].matcher, 'Edit|Write|MultiEdit|NotebookEdit');
    // SPEC §10: no process per edit — the session's own coord mcp answers (tool decide_edit).
    assert.deepEqual(settings.hooks.PreToolUse[1].hooks[0], {
      type: 'mcp_tool',
      server: 'coord',
      tool: 'decide_edit',
      input: {
        file_path: '$' + '{tool_input.file_path}',
        notebook_path: '$' + '{tool_input.notebook_path}',
        timeout_s: 30,
      },
      timeout: 30,
      statusMessage: 'coord: checking locks (hook pre-edit --client claude)',
    });
    assert.match(settings.hooks.SessionStart[0].hooks[0].command, / prime --client claude/);
    assert.match(settings.hooks.Stop[0].hooks[0].command, / hook stop --client claude/);
    const md = readFileSync(join(h, '.claude/CLAUDE.md'), 'utf8');
    assert.ok(md.startsWith(PRIOR['.claude/CLAUDE.md'] ?? ''));
    assert.match(md, /<!-- coord:begin v=1 sha=[0-9a-f]{12} -->\n## coord[\s\S]*<!-- coord:end -->\n$/);
  });

  test('claude: the command pre-edit hook an earlier setup wrote is replaced by the native mcp_tool hook, not doubled', async () => {
    const h = home();
    const path = join(h, '.claude/settings.json');
    const old = {
      matcher: 'Edit|Write|MultiEdit|NotebookEdit',
      hooks: [{ type: 'command', command: 'node coord.js hook pre-edit --client claude', timeout: 15 }],
    };
    writeFileSync(path, JSON.stringify({ hooks: { PreToolUse: [old] } }));
    assert.equal((await setup(h, ROOT, 'claude', '--write')).code, 0);
    const edits = JSON.parse(readFileSync(path, 'utf8')).hooks.PreToolUse.filter(
      (g: { matcher: string }) => g.matcher === 'Edit|Write|MultiEdit|NotebookEdit',
    );
    assert.equal(edits.length, 1);
    assert.deepEqual(
      edits[0].hooks.map((x: { type: string }) => x.type),
      ['mcp_tool'],
    );
  });

  test('codex: without the codex binary the hooks are written, setup says they are not trusted, and exits 0', async () => {
    const h = home();
    const r = await setup(h, ROOT, 'codex', '--write');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /not trusted/);
    const toml = readFileSync(join(h, '.codex/config.toml'), 'utf8');
    assert.ok(toml.startsWith('# coord:begin top\nmcp_optional_startup_grace_ms = 20000\n# coord:end top\n'));
    assert.match(toml, /\[mcp_servers\.coord\]\ncommand = "[^"]+"\nargs = \[[^\]]*"mcp", "--client", "codex"/);
    assert.match(toml, /\[\[hooks\.PreToolUse\]\]\nmatcher = "apply_patch"/);
    assert.ok(toml.includes('[profiles.fast]\nmodel = "gpt-5.5-mini"\n'));
  });

  test('a file the client rewrote after setup loses only what coord added on --remove', async () => {
    const h = home();
    await setup(h, ROOT, 'claude', '--write');
    const path = join(h, '.claude.json');
    const rewritten = { ...JSON.parse(readFileSync(path, 'utf8')), numStartups: 4, tipsHistory: { x: 1 } };
    writeFileSync(path, JSON.stringify(rewritten));
    await setup(h, ROOT, 'claude', '--remove');
    assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), {
      numStartups: 4,
      mcpServers: { other: { command: 'other-mcp' } },
      tipsHistory: { x: 1 },
    });
  });

  test('cursor (project scope): mcp.json, hooks.json and rules/coord.mdc in the work tree; --remove leaves no trace', async () => {
    const h = tempDir('coord-home-');
    const repo = repoWithWorktrees(0).main;
    assert.equal((await setup(h, repo, 'cursor', '--write')).code, 0);
    const hooks = JSON.parse(readFileSync(join(repo, '.cursor/hooks.json'), 'utf8'));
    assert.equal(hooks.version, 1);
    assert.match(hooks.hooks.preToolUse[0].command, / hook pre-edit --client cursor/);
    assert.match(
      readFileSync(join(repo, '.cursor/rules/coord.mdc'), 'utf8'),
      /^---\ndescription: coord[\s\S]*alwaysApply: true\n---\n\n<!-- coord:begin/,
    );
    await setup(h, repo, 'cursor', '--remove');
    assert.equal(existsSync(join(repo, '.cursor')), false);
  });

  test('without --write, setup prints what it would write and writes nothing', async () => {
    const h = home();
    const before = snapshot(h, FILES.gemini);
    const r = await setup(h, ROOT, 'gemini');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /"trust": true/);
    assert.match(r.stdout, /write_file\|replace/);
    assert.deepEqual(snapshot(h, FILES.gemini), before);
  });
});
