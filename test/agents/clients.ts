/**
 * One driver per real client: set it up with `coord setup <client> --write` (and nothing else that
 * touches coord's config), point it at its fake model, run it headless, and read back what its model
 * was told. The model wiring (base URL, dummy key, provider) is the harness's own and is given on the
 * command line or in the environment, never in the files coord setup manages.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { startFakeAnthropic } from './fake-anthropic.js';
import { startFakeGemini } from './fake-gemini.js';
import type { FakeModel, Step, ToolResult } from './fake-model.js';
import { startFakeOpenAI } from './fake-openai.js';
import {
  type ClientName,
  cleanEnv,
  clientBin,
  coord,
  describeRun,
  isolatedHome,
  type Run,
  type Started,
  start,
} from './support.js';

export const CLIENT_NAMES: ClientName[] = ['claude', 'codex', 'gemini'];

/** The name a client gives coord's tool `t` when it offers it to the model. */
export const toolName = (client: ClientName, t: string): string =>
  client === 'gemini' ? `mcp_coord_${t}` : `mcp__coord__${t}`;

export const startFake = (client: ClientName, steps: Step[] = []): Promise<FakeModel> =>
  client === 'claude'
    ? startFakeAnthropic(steps)
    : client === 'codex'
      ? startFakeOpenAI(steps)
      : startFakeGemini(steps);

export interface Agent {
  client: ClientName;
  home: string;
  /** The environment without the model wiring (add `modelEnv` for a run). */
  env: NodeJS.ProcessEnv;
  setup: Run;
}

/** A client with its own HOME, set up for coord by `coord setup <client> --write` run in `repo`. */
export async function setUpAgent(client: ClientName, repo: string, stateDir: string): Promise<Agent> {
  const home = isolatedHome(`coord-agent-${client}-`);
  if (client === 'gemini') {
    // The harness's model wiring: API-key auth (it points at the fake through GOOGLE_GEMINI_BASE_URL).
    mkdirSync(join(home, '.gemini'), { recursive: true });
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      `${JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }, null, 2)}\n`,
    );
  }
  const env = cleanEnv(home, { COORD_STATE: stateDir });
  const setup = await coord(['setup', client, '--write', '--state', stateDir], { cwd: repo, env });
  return { client, home, env, setup };
}

/** The environment that points a client at its fake model, with a dummy key. */
export function modelEnv(client: ClientName, fake: FakeModel): Record<string, string> {
  if (client === 'claude') {
    return {
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_API_KEY: 'sk-ant-fake-key',
      // MCP tool schemas up front, not deferred behind ToolSearch (the fake would have to answer it).
      ENABLE_TOOL_SEARCH: 'false',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
  }
  if (client === 'codex') return { FAKE_MODEL_KEY: 'sk-fake-key' };
  return { GOOGLE_GEMINI_BASE_URL: fake.url, GEMINI_API_KEY: 'dummy', GEMINI_CLI_TRUST_WORKSPACE: 'true' };
}

/** The headless command line: a one-shot prompt, no prompts for permission where the client allows that. */
export function argv(client: ClientName, fake: FakeModel, prompt: string, allowedTools: string[] = []): string[] {
  if (client === 'claude') {
    const tools = ['mcp__coord', 'Read', 'Edit', 'Write', ...allowedTools];
    return ['-p', prompt, '--allowedTools', tools.join(','), '--output-format', 'json'];
  }
  if (client === 'codex') {
    return [
      'exec',
      '--skip-git-repo-check',
      // A model name Codex knows, so that it offers apply_patch.
      '-m',
      'gpt-5.5',
      '-c',
      'model_provider="fake"',
      '-c',
      `model_providers.fake={name="fake",base_url="${fake.url}/v1",wire_api="responses",env_key="FAKE_MODEL_KEY"}`,
      '-c',
      'approval_policy="never"',
      '-s',
      'workspace-write',
      // codex exec drops an MCP server that is slow to start (coord mcp under tsx on a busy machine).
      '-c',
      'mcp_optional_startup_grace_ms=60000',
      prompt,
    ];
  }
  return ['-p', prompt, '-m', 'gemini-2.5-flash', '--output-format', 'json', '--approval-mode', 'yolo'];
}

/** Start a client run in `cwd` against `fake`. */
export function startAgent(
  agent: Agent,
  fake: FakeModel,
  cwd: string,
  prompt: string,
  opts: { env?: Record<string, string>; timeoutMs?: number; extraArgs?: string[] } = {},
): Started {
  return start(clientBin(agent.client), [...argv(agent.client, fake, prompt), ...(opts.extraArgs ?? [])], {
    cwd,
    env: { ...agent.env, ...modelEnv(agent.client, fake), ...opts.env },
    timeoutMs: opts.timeoutMs ?? 180_000,
  });
}

/**
 * coord's own bytes within a tool result, without the client's wrapper around them: Codex sends its
 * "Wall time: … Output:" header as a separate first part; Gemini CLI wraps MCP output in
 * `<untrusted_context>` lines. Claude Code passes the text as it is.
 */
export function coordText(client: ClientName, r: ToolResult): string {
  if (client === 'codex' && r.parts && r.parts.length > 1 && /^Wall time: /.test(r.parts[0] ?? '')) {
    return r.parts.slice(1).join('');
  }
  if (client === 'gemini') {
    const m = /^<untrusted_context>\n([\s\S]*)\n<\/untrusted_context>$/.exec(r.text);
    if (m) return m[1] ?? '';
  }
  return r.text;
}

export const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * The script steps that make a client's model change `from` to `to` in `file` (relative to `cwd`) with
 * the client's own write tool: Claude Code Read then Edit (Edit refuses a file the session has not
 * read), Codex apply_patch, Gemini CLI replace.
 */
export function editSteps(client: ClientName, cwd: string, file: string, from: string, to: string): Step[] {
  const abs = join(cwd, file);
  if (client === 'claude') {
    return [
      { tool: 'Read', args: { file_path: abs } },
      { tool: 'Edit', args: { file_path: abs, old_string: from, new_string: to } },
    ];
  }
  if (client === 'codex') {
    const patch = `*** Begin Patch\n*** Update File: ${file}\n@@\n-${from}\n+${to}\n*** End Patch\n`;
    return [{ tool: 'apply_patch', args: { input: patch } }];
  }
  return [{ tool: 'replace', args: { file_path: abs, old_string: from, new_string: to, instruction: 'edit' } }];
}

/** The results of the client's edit tool (Edit, apply_patch, replace) as the model read them, in order. */
export function editResults(client: ClientName, fake: FakeModel): ToolResult[] {
  const name = client === 'claude' ? 'Edit' : client === 'codex' ? 'apply_patch' : 'replace';
  return fake.results().filter((r) => r.tool === name);
}

/** The last of them. */
export function editResult(client: ClientName, fake: FakeModel): ToolResult | undefined {
  const all = editResults(client, fake);
  return all[all.length - 1];
}

/** Did `coord setup` give this client its pre-edit hook? (Until it does, the hook tests wait for it.) */
export function hooksWritten(agent: Agent): boolean {
  const read = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : '');
  if (agent.client === 'claude') return /PreToolUse/.test(read(join(agent.home, '.claude', 'settings.json')));
  if (agent.client === 'codex')
    return /hooks[.\]]*PreToolUse|PreToolUse/.test(read(join(agent.home, '.codex', 'config.toml')));
  return /BeforeTool/.test(read(join(agent.home, '.gemini', 'settings.json')));
}

/**
 * `client` set up in `repo` (the setup asserted to succeed), or null with the test skipped where coord setup
 * does not know the client yet, or (`needsHook`) writes it no pre-edit hook yet.
 */
export async function readyAgent(
  t: TestContext,
  client: ClientName,
  repo: string,
  stateDir: string,
  needsHook = true,
): Promise<Agent | null> {
  const agent = await setUpAgent(client, repo, stateDir);
  if (agent.setup.stderr.includes(`unknown client "${client}"`)) {
    t.skip(`coord setup ${client} does not exist yet`);
    return null;
  }
  assert.equal(agent.setup.code, 0, `coord setup ${client} --write: ${describeRun(agent.setup)}`);
  if (needsHook && !hooksWritten(agent)) {
    t.skip(`coord setup ${client} --write writes no pre-edit hook yet`);
    return null;
  }
  return agent;
}
