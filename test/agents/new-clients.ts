/**
 * Drivers for the clients of SPEC §17 that speak OpenAI Chat Completions to a custom provider:
 * Copilot CLI, OpenCode, Kilo, Qwen Code, Cline and Pi. Each is set up for coord by `coord setup
 * <client> --write` alone; the model wiring (provider, base URL, dummy key) is the harness's own, given
 * in the environment or in a file coord setup does not touch, and rewritten for each run's fake model.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../support/daemon.js';
import { chatToolDefs } from './fake-chat.js';
import type { FakeModel, Step, ToolResult } from './fake-model.js';
import { cleanEnv, coord, isolatedHome, type Run, type Started, start } from './support.js';

export const NEW_CLIENTS = ['copilot', 'opencode', 'kilo', 'qwen', 'cline', 'pi'] as const;
export type NewClient = (typeof NEW_CLIENTS)[number];

interface Pin {
  package: string;
  version: string;
  bin: string;
}
const PINS = JSON.parse(readFileSync(join(ROOT, 'scripts/agents/versions.json'), 'utf8')) as Record<string, Pin>;
const CACHE = process.env.COORD_AGENTS_CACHE || join(homedir(), '.cache', 'coord-agents');

export const pinOf = (c: NewClient): Pin => PINS[c] as Pin;
export function binOf(c: NewClient): string {
  const p = pinOf(c);
  return join(CACHE, `${p.package.replace('/', '+')}@${p.version}`, 'node_modules', '.bin', p.bin);
}

/** The name the client's model sees for coord's tool `t`. */
export function coordTool(c: NewClient, t: string): string {
  if (c === 'copilot') return `coord-${t}`;
  if (c === 'qwen') return `mcp__coord__${t}`;
  if (c === 'cline') return `coord__${t}`;
  return `coord_${t}`;
}

/** The client's own edit tool, as its model calls it. */
export const EDIT_TOOL: Record<NewClient, string> = {
  copilot: 'edit',
  opencode: 'edit',
  kilo: 'edit',
  qwen: 'edit',
  cline: 'editor',
  pi: 'edit',
};

/** Steps that change `from` to `to` in `file` with the client's own edit tool (reading first where it insists). */
export function editSteps(c: NewClient, cwd: string, file: string, from: string, to: string): Step[] {
  const abs = join(cwd, file);
  switch (c) {
    case 'copilot':
      return [{ tool: 'edit', args: { path: abs, old_str: from, new_str: to } }];
    case 'opencode':
    case 'kilo':
      return [
        { tool: 'read', args: { filePath: abs } },
        { tool: 'edit', args: { filePath: abs, oldString: from, newString: to } },
      ];
    case 'qwen':
      return [
        { tool: 'read_file', args: { file_path: abs } },
        { tool: 'edit', args: { file_path: abs, old_string: from, new_string: to } },
      ];
    case 'cline':
      return [{ tool: 'editor', args: { path: abs, old_text: from, new_text: to } }];
    case 'pi':
      return [{ tool: 'edit', args: { path: abs, edits: [{ oldText: from, newText: to }] } }];
  }
}

export interface NewAgent {
  client: NewClient;
  home: string;
  env: NodeJS.ProcessEnv;
  setup: Run;
}

/** A fresh HOME, the harness's model wiring that lives in files, then `coord setup <client> --write`. */
export async function setUpNew(client: NewClient, repo: string, stateDir: string): Promise<NewAgent> {
  const home = isolatedHome(`coord-agent-${client}-`);
  if (client === 'qwen') {
    mkdirSync(join(home, '.qwen'), { recursive: true });
    writeFileSync(
      join(home, '.qwen', 'settings.json'),
      `${JSON.stringify({ security: { auth: { selectedType: 'openai' } } }, null, 2)}\n`,
    );
  }
  const env = cleanEnv(home, { COORD_STATE: stateDir });
  const setup = await coord(['setup', client, '--write', '--state', stateDir], { cwd: repo, env });
  return { client, home, env, setup };
}

const provider = (url: string) => ({
  model: 'fake/fake-model',
  provider: {
    fake: {
      npm: '@ai-sdk/openai-compatible',
      name: 'fake',
      options: { baseURL: `${url}/v1`, apiKey: 'sk-fake' },
      models: { 'fake-model': { name: 'fake', tool_call: true } },
    },
  },
});

const quiet = (prefix: string): Record<string, string> =>
  Object.fromEntries(
    [
      'AUTOUPDATE',
      'MODELS_FETCH',
      'LSP_DOWNLOAD',
      'SHARE',
      'DEFAULT_PLUGINS',
      'CODEBASE_INDEXING',
      'SESSION_INGEST',
    ].map((k) => [`${prefix}_DISABLE_${k}`, 'true']),
  );

/** Point the client at this run's fake model: environment, and the files only the harness writes. */
function wire(agent: NewAgent, fake: FakeModel): Record<string, string> {
  const url = fake.url;
  switch (agent.client) {
    case 'copilot':
      return {
        COPILOT_PROVIDER_BASE_URL: `${url}/v1`,
        COPILOT_PROVIDER_API_KEY: 'sk-fake',
        COPILOT_MODEL: 'gpt-4.1',
        COPILOT_OFFLINE: 'true',
        COPILOT_AUTO_UPDATE: 'false',
      };
    // Nothing fetched from the network that a headless run does not need (the model list, LSP servers, …).
    case 'opencode':
      return { OPENCODE_CONFIG_CONTENT: JSON.stringify(provider(url)), ...quiet('OPENCODE') };
    case 'kilo':
      return { KILO_CONFIG_CONTENT: JSON.stringify(provider(url)), ...quiet('KILO') };
    case 'qwen':
      return {
        OPENAI_BASE_URL: `${url}/v1`,
        OPENAI_API_KEY: 'sk-fake',
        OPENAI_MODEL: 'fake-model',
        QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
      };
    case 'cline': {
      // Cline keeps its provider in ~/.cline/data/settings/providers.json, written by its own `cline auth`.
      execFileSync(
        binOf('cline'),
        ['auth', '-p', 'openai-compatible', '-k', 'sk-fake', '-m', 'fake-model', '-b', `${url}/v1`],
        { env: agent.env, stdio: 'ignore', timeout: 60_000 },
      );
      // Its plugin sandbox gives a plugin 4 s to load; a busy CI machine needs longer.
      return { CLINE_PLUGIN_IMPORT_TIMEOUT_MS: '60000' };
    }
    case 'pi': {
      const dir = join(agent.home, '.pi', 'agent');
      mkdirSync(dir, { recursive: true });
      const models = {
        providers: {
          fake: { baseUrl: `${url}/v1`, api: 'openai-completions', apiKey: 'sk-fake', models: [{ id: 'fake-model' }] },
        },
      };
      writeFileSync(join(dir, 'models.json'), `${JSON.stringify(models, null, 2)}\n`);
      return {};
    }
  }
}

/** The headless command line of one run. */
function argvOf(c: NewClient, prompt: string): string[] {
  switch (c) {
    case 'copilot':
      return ['-p', prompt, '--allow-all-tools', '--no-auto-update', '--disable-builtin-mcps'];
    case 'opencode':
    case 'kilo':
      return ['run', prompt, '--auto'];
    case 'qwen':
      return ['-p', prompt, '--approval-mode', 'yolo'];
    case 'cline':
      return ['--json', prompt];
    case 'pi':
      return ['-p', prompt, '--provider', 'fake', '--model', 'fake-model', '--no-session'];
  }
}

export function startNew(agent: NewAgent, fake: FakeModel, cwd: string, prompt: string, timeoutMs = 240_000): Started {
  const env = { ...agent.env, ...wire(agent, fake) };
  return start(binOf(agent.client), argvOf(agent.client, prompt), { cwd, env, timeoutMs });
}

/**
 * Cline runs its sessions in a detached hub process (its parent is PID 1) that outlives the CLI: the
 * run's own hub — found by the HOME it was started with — is stopped after the run, by its pid.
 */
export function stopClineHubs(home: string): number[] {
  const stopped: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (!cmd.includes('--cline-hub-daemon')) continue;
      const env = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (!env.includes(`HOME=${home}`)) continue;
      process.kill(Number(name), 'SIGTERM');
      stopped.push(Number(name));
    } catch {
      /* gone, or not ours */
    }
  }
  return stopped;
}

/**
 * coord's own bytes within a tool result, without the client's wrapper: Copilot CLI prefixes a denied
 * call with `Denied by preToolUse hook: `; Cline hands the model the whole `CallToolResult` (its text
 * content is coord's) and a skipped call as `{"error": reason}`.
 */
export function coordBytesOf(c: NewClient, r: ToolResult): string {
  if (c === 'cline') {
    try {
      const o = JSON.parse(r.text) as { content?: { text?: string }[]; error?: string };
      if (Array.isArray(o.content)) return o.content.map((p) => p.text ?? '').join('');
      if (typeof o.error === 'string') return o.error;
    } catch {
      /* plain text */
    }
  }
  return r.text;
}

/** Bytes of coord's tool definitions in one request, as the model receives them (the tools array entries). */
export function coordToolDefBytes(c: NewClient, body: unknown): number {
  let n = 0;
  for (const [name, def] of chatToolDefs(body)) {
    if (name.startsWith(coordTool(c, ''))) n += Buffer.byteLength(JSON.stringify(def), 'utf8');
  }
  return n;
}

/**
 * coord's part of a failed tool's result as the model reads it, the client's wrapper left out: Qwen Code
 * (like Gemini CLI) shows `MCP tool '…' reported tool error for function call: {…} with response: [{…
 * "response": {"error": <the result object coord sent>}}]` — coord's part is that object; Cline shows the
 * result object itself; elsewhere the text.
 */
export function failedPartOf(c: NewClient, r: ToolResult): string {
  if (c === 'qwen') {
    const at = r.text.indexOf(' with response: ');
    if (at >= 0) {
      try {
        const parts = JSON.parse(r.text.slice(at + ' with response: '.length)) as {
          functionResponse?: { response?: { error?: unknown } };
        }[];
        const response = parts[0]?.functionResponse?.response;
        return JSON.stringify(response?.error ?? response ?? null);
      } catch {
        return r.text;
      }
    }
  }
  if (c === 'cline') return r.text;
  return coordBytesOf(c, r);
}
