/**
 * SPEC §18 with the real Gemini CLI (driven by the fake Gemini API), Qwen Code, Copilot CLI and OpenCode (driven
 * by the fake Chat Completions model): for
 * each, `coord run --agents <client>:1 --once` claims the ready task for a fresh agent, makes its work tree on
 * `coord/<id>-<slug>`, starts the client headless there with coord's MCP server and hooks for that process only
 * (files in a folder of the launch's own, never the user's), and the agent — whose MCP session starts holding
 * the claim — edits with its own tool (coord's pre-edit hook takes the file's auto-lock), commits with git in
 * the linked work tree, and submits. The task ends completed with its commit on its branch.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { COORD } from '../support/daemon.js';
import { suiteDaemon } from '../support/suite-daemon.js';
import { editSteps as geminiEditSteps, modelEnv as geminiModelEnv } from './clients.js';
import { startFakeChat } from './fake-chat.js';
import { startFakeGemini } from './fake-gemini.js';
import type { FakeModel, Step } from './fake-model.js';
import { binOf, coordTool as newCoordTool, editSteps as newEditSteps } from './new-clients.js';
import { cleanEnv, clientBin, coord, describeRun, isolatedHome, makeRepo, run } from './support.js';

const CLIENTS = ['gemini', 'qwen', 'copilot', 'opencode'] as const;
type Client = (typeof CLIENTS)[number];

const coordTool = (client: Client, t: string): string =>
  client === 'gemini' ? `mcp_coord_${t}` : newCoordTool(client, t);
const editSteps = (client: Client, tree: string, file: string, from: string, to: string): Step[] =>
  client === 'gemini' ? geminiEditSteps(client, tree, file, from, to) : newEditSteps(client, tree, file, from, to);

const git = (cwd: string, ...a: string[]) => execFileSync('git', a, { cwd, encoding: 'utf8' }).trim();

/**
 * A person's own config files for the client, written before the run: coord run must leave them byte for byte
 * (written as each client itself rewrites them on start: Qwen Code adds its `$version`, OpenCode its `$schema`).
 */
function userFiles(client: Client, home: string, repo: string): Record<string, string> {
  // API-key auth (the fake is named by GOOGLE_GEMINI_BASE_URL), and the person trusts their repository: the
  // task's new work tree is trusted as the same repository (Gemini CLI's headless mode stops in an untrusted one).
  if (client === 'gemini')
    return {
      [join(home, '.gemini', 'settings.json')]:
        `${JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }, null, 2)}\n`,
      [join(home, '.gemini', 'trustedFolders.json')]: `${JSON.stringify({ [repo]: 'TRUST_FOLDER' }, null, 2)}\n`,
    };
  if (client === 'qwen')
    return {
      [join(home, '.qwen', 'settings.json')]:
        `${JSON.stringify({ security: { auth: { selectedType: 'openai' } }, $version: 4 }, null, 2)}\n`,
    };
  if (client === 'copilot') return { [join(home, '.copilot', 'mcp-config.json')]: '{\n  "mcpServers": {}\n}\n' };
  return {
    [join(home, '.config', 'opencode', 'opencode.json')]:
      '{\n  "$schema": "https://opencode.ai/config.json",\n  "autoupdate": false\n}\n',
  };
}

/** Where `coord setup` would have written coord's hooks or plugin: coord run must not. */
const setupFiles = (client: Client, home: string): string[] =>
  client === 'gemini'
    ? [join(home, '.gemini', 'GEMINI.md')]
    : client === 'qwen'
      ? [join(home, '.qwen', 'QWEN.md')]
      : client === 'copilot'
        ? [join(home, '.copilot', 'hooks', 'coord.json')]
        : [join(home, '.config', 'opencode', 'plugins', 'coord.js')];

/** The harness's model wiring (environment only): the same as new-clients.ts gives each client. */
function modelEnv(client: Client, fake: FakeModel): Record<string, string> {
  if (client === 'gemini') {
    // Trust comes from the person's trustedFolders.json (userFiles), not the harness's blanket variable.
    const { GEMINI_CLI_TRUST_WORKSPACE: _, ...env } = geminiModelEnv(client, fake);
    // One process, not two: Gemini CLI otherwise starts itself again with a larger heap (its whole bundle twice).
    return { ...env, GEMINI_CLI_NO_RELAUNCH: 'true' };
  }
  if (client === 'qwen')
    return { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-fake', OPENAI_MODEL: 'fake-model' };
  if (client === 'copilot')
    return {
      COPILOT_PROVIDER_BASE_URL: `${fake.url}/v1`,
      COPILOT_PROVIDER_API_KEY: 'sk-fake',
      COPILOT_MODEL: 'gpt-4.1',
      COPILOT_OFFLINE: 'true',
      COPILOT_AUTO_UPDATE: 'false',
    };
  const provider = {
    model: 'fake/fake-model',
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'fake',
        options: { baseURL: `${fake.url}/v1`, apiKey: 'sk-fake' },
        models: { 'fake-model': { name: 'fake', tool_call: true } },
      },
    },
  };
  return {
    OPENCODE_CONFIG_CONTENT: JSON.stringify(provider),
    ...Object.fromEntries(
      ['AUTOUPDATE', 'MODELS_FETCH', 'LSP_DOWNLOAD', 'SHARE', 'DEFAULT_PLUGINS'].map((k) => [
        `OPENCODE_DISABLE_${k}`,
        'true',
      ]),
    ),
  };
}

/** The model's script: edit with the client's own tool, commit with git from its shell tool, submit through coord. */
function doTask(client: Client, tree: string, taskId: string): Step[] {
  const command = 'git add -A && git commit -q -m "change a"';
  return [
    ...editSteps(client, tree, 'src/a.ts', 'export const a = 1;', 'export const a = 2;'),
    client === 'gemini'
      ? { tool: 'run_shell_command', args: { command, description: 'commit' } }
      : client === 'qwen'
        ? { tool: 'run_shell_command', args: { command, is_background: false } }
        : { tool: 'bash', args: { command, description: 'commit' } },
    {
      tool: coordTool(client, 'submit_result'),
      args: { task_id: taskId, status: 'completed', result: { summary: 'done' } },
    },
    { say: 'done' },
  ];
}

describe('coord run with the real Gemini CLI, Qwen Code, Copilot CLI and OpenCode', () => {
  const daemon = suiteDaemon();

  for (const client of CLIENTS) {
    it(`${client}:1 --once: the agent edits (its pre-edit hook auto-locks), commits in its linked work tree and submits; the user's files are untouched`, async () => {
      const repo = makeRepo(`coord-run-${client}-`);
      const home = isolatedHome(`coord-run-${client}-`);
      const mine = userFiles(client, home, repo);
      for (const [path, content] of Object.entries(mine)) {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, content);
      }
      const base = cleanEnv(home, { COORD_STATE: daemon.stateDir });
      // The client on PATH, as a person who installed it has it.
      const env = { ...base, PATH: `${dirname(client === 'gemini' ? clientBin(client) : binOf(client))}:${base.PATH}` };
      const posted = await coord(['post', 'Change a to two', '--json'], { cwd: repo, env });
      assert.equal(posted.code, 0, describeRun(posted));
      const id = (JSON.parse(posted.stdout) as { task: { id: string } }).task.id;
      const tree = `${repo}.worktrees/${id}`;
      const steps = doTask(client, tree, id);
      const fake = await (client === 'gemini' ? startFakeGemini(steps) : startFakeChat(steps));
      try {
        const r = await run(
          process.execPath,
          [...COORD.slice(1), 'run', '--agents', `${client}:1`, '--once', '--json'],
          { cwd: repo, env: { ...env, ...modelEnv(client, fake) }, timeoutMs: 300_000 },
        );
        assert.equal(r.code, 0, describeRun(r));
        const out = JSON.parse(r.stdout) as { runs: { agent: string; submitted: boolean }[] };
        assert.equal(out.runs.length, 1, `${describeRun(r)}\n${JSON.stringify(fake.results())}`);
        const agent = out.runs[0]?.agent ?? '';
        assert.match(agent, new RegExp(`^${client}#[0-9a-f]{4}$`));
        assert.equal(out.runs[0]?.submitted, true, `${describeRun(r)}\n${JSON.stringify(fake.results())}`);

        const shown = await coord(['show', id, '--json'], { cwd: repo, env });
        const task = (JSON.parse(shown.stdout) as { task: Record<string, unknown> }).task as {
          state: string;
          change: { branch: string; commits: { subject: string }[] } | null;
        };
        assert.equal(task.state, 'completed', shown.stdout);
        assert.equal(task.change?.branch, `coord/${id}-change-a-to-two`);
        assert.deepEqual(
          task.change?.commits.map((c) => c.subject),
          ['change a'],
        );
        assert.equal(git(tree, 'show', 'HEAD:src/a.ts'), 'export const a = 2;');
        // The submit went through with the claim the session started with.
        const submitted = fake.results().find((x) => x.tool === coordTool(client, 'submit_result'));
        assert.ok(submitted && !/stale_claim|not_claimed|error/i.test(submitted.text), JSON.stringify(fake.results()));
        // coord's pre-edit hook ran for this agent: the edit took the file's auto-lock.
        const events = (await (await daemon.fetch('/v1/events?format=json&limit=500')).json()) as {
          events: { type: string; agent?: string | null }[];
        };
        assert.ok(
          events.events.some((e) => e.type === 'lock.acquired' && e.agent === agent),
          `no lock.acquired by ${agent}: ${JSON.stringify(events.events.map((e) => [e.type, e.agent]))}`,
        );
        for (const [path, content] of Object.entries(mine)) assert.equal(readFileSync(path, 'utf8'), content, path);
        for (const path of setupFiles(client, home)) assert.equal(existsSync(path), false, path);
        // Gemini CLI ran in a home of the launch's own: nothing new in the person's .gemini either.
        if (client === 'gemini')
          assert.deepEqual(readdirSync(join(home, '.gemini')).sort(), ['settings.json', 'trustedFolders.json']);
      } finally {
        await fake.close();
      }
    });
  }
});
