/**
 * Gemini CLI headless (SPEC §18): `gemini -p PROMPT --output-format stream-json`.
 *
 * Gemini CLI has no per-process flag for MCP servers or hooks, and since 0.5x it reads a system settings file
 * (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`, `GEMINI_CLI_SYSTEM_DEFAULTS_PATH`) only when the file and every folder above
 * it are owned by root and writable by no one else ("Security Warning: Skipping system settings file"): useless
 * to a person's own process. What it does read per process is `GEMINI_CLI_HOME`, the home its `.gemini` folder
 * lives in. So coord gives this launch a home of its own (in the agent's folder in coord's state directory, kept
 * across a pause so that the session can resume): its `.gemini/settings.json` is the person's own settings with
 * coord's MCP server (trusted, with coord's variables), coord's hooks and git in the shell added, and every
 * other entry of the person's `.gemini` (credentials, sessions, GEMINI.md, extensions, trusted folders) is a
 * symbolic link to theirs — Gemini CLI runs as their own, and no file of theirs is written by coord.
 *
 * Gemini CLI's folder trust (on unless the person's settings turn it off) stops a headless run in a folder the
 * person has not trusted (exit 55). A task's work tree is new, but it is the same repository: it is trusted when
 * the main work tree is, by the person's own trustedFolders.json (`GEMINI_CLI_TRUST_WORKSPACE=true` for this
 * process), and otherwise left to Gemini CLI's check (the person trusts the repository, its parent, or sets
 * `GEMINI_CLI_TRUST_WORKSPACE` themselves).
 *
 * The default approval mode is `auto_edit` with `run_shell_command(git)` allowed: the agent edits its work
 * tree and commits without asking; anything else that needs a confirmation is refused (headless mode never
 * asks). `--permission-mode` passes Gemini CLI's own (`default`, `auto_edit`, `yolo`, `plan`) instead.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ClientEvent, HeadlessProfile, HeadlessSpec, StreamSignal } from './profile.js';
import { num, obj, parsedLine, toolCall, waitOf } from './stream-lines.js';

const EDIT = ['write_file', 'replace'];
const SHELL = ['run_shell_command'];

/** JSON with Gemini CLI's comments allowed (`//` and block comments outside strings), as it reads settings.json. */
export function parseJsonc(text: string): unknown {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else out += c;
  }
  return JSON.parse(out);
}

/** The person's settings with coord's part added: their MCP servers, allowed tools and hooks stay. */
export function mergedSettings(user: Record<string, unknown>, s: HeadlessSpec): Record<string, unknown> {
  const group = (event: ClientEvent, name: string, matcher?: string) => ({
    ...(matcher ? { matcher } : {}),
    hooks: [{ type: 'command', command: s.hook(event), name, timeout: 30_000 }],
  });
  const hooks = obj(user.hooks);
  // coord's own hooks from `coord setup gemini` (user scope) give way to this launch's: each runs once.
  const marks = (['pre-edit', 'pre-shell', 'post-shell', 'session-start'] as const).map((e) => s.mark(e));
  const add = (event: string, ...groups: unknown[]) => [
    ...(Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : []).filter(
      (g) => !marks.some((m) => JSON.stringify(g).includes(m)),
    ),
    ...groups,
  ];
  const tools = obj(user.tools);
  const allowed = Array.isArray(tools.allowed) ? (tools.allowed as unknown[]) : [];
  return {
    ...user,
    mcpServers: {
      ...obj(user.mcpServers),
      coord: { command: s.mcp.command, args: s.mcp.args, env: s.coordEnv, trust: true },
    },
    ...(s.permissionMode === undefined ? { tools: { ...tools, allowed: [...allowed, 'run_shell_command(git)'] } } : {}),
    ...(s.maxTurns === undefined ? {} : { model: { ...obj(user.model), maxSessionTurns: s.maxTurns } }),
    hooks: {
      ...hooks,
      BeforeTool: add(
        'BeforeTool',
        group('pre-edit', 'coord-pre-edit', EDIT.join('|')),
        group('pre-shell', 'coord-pre-shell', SHELL.join('|')),
      ),
      AfterTool: add('AfterTool', group('post-shell', 'coord-post-shell', SHELL.join('|'))),
      SessionStart: add('SessionStart', group('session-start', 'coord-prime')),
    },
  };
}

const real = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/**
 * Is `dir` trusted by the rules of a trustedFolders.json, as Gemini CLI reads them: the longest rule whose
 * folder holds `dir` decides (`TRUST_FOLDER` its own folder, `TRUST_PARENT` the folder above, `DO_NOT_TRUST`).
 */
export function trustedBy(rules: Record<string, unknown>, dir: string): boolean {
  const at = real(dir);
  let longest = -1;
  let level: unknown;
  for (const [rule, trust] of Object.entries(rules)) {
    const folder = real(trust === 'TRUST_PARENT' ? dirname(rule) : rule);
    const holds = at === folder || at.startsWith(folder.endsWith('/') ? folder : `${folder}/`);
    if (holds && rule.length > longest) {
      longest = rule.length;
      level = trust;
    }
  }
  return level === 'TRUST_FOLDER' || level === 'TRUST_PARENT';
}

/** The main work tree, trusted by the person (folder trust off, or trustedFolders.json): so is the task's. */
function mainTrusted(user: Record<string, unknown>, theirs: string | null, gitCommonDir: string): boolean {
  if (obj(obj(obj(user.security).folderTrust)).enabled === false) return true;
  const file = process.env.GEMINI_CLI_TRUSTED_FOLDERS_PATH || (theirs && join(theirs, 'trustedFolders.json'));
  if (!file || !existsSync(file) || basename(gitCommonDir) !== '.git') return false;
  try {
    return trustedBy(obj(parseJsonc(readFileSync(file, 'utf8'))), dirname(gitCommonDir));
  } catch {
    return false;
  }
}

/** The person's own `.gemini` folder: `$GEMINI_CLI_HOME/.gemini` as Gemini CLI reads it, else `~/.gemini`. */
const userGeminiDir = (env: NodeJS.ProcessEnv): string | null => {
  const home = env.GEMINI_CLI_HOME || env.HOME;
  return home ? join(home, '.gemini') : null;
};

/**
 * The launch's home: `<scratch>/gemini-home/.gemini` holding a link to each entry of the person's `.gemini`
 * but settings.json (made once; a link already there stays). Returns that folder and the person's settings.
 */
function linkedHome(
  scratch: string,
  env: NodeJS.ProcessEnv,
): { home: string; theirs: string | null; user: Record<string, unknown> } {
  const home = join(scratch, 'gemini-home');
  const dir = join(home, '.gemini');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const theirs = userGeminiDir(env);
  let user: Record<string, unknown> = {};
  if (theirs && existsSync(theirs)) {
    for (const name of readdirSync(theirs)) {
      if (name === 'settings.json') continue;
      const at = join(dir, name);
      try {
        lstatSync(at);
      } catch {
        symlinkSync(join(theirs, name), at);
      }
    }
    const settings = join(theirs, 'settings.json');
    if (existsSync(settings)) {
      try {
        user = obj(parseJsonc(readFileSync(settings, 'utf8')));
      } catch (err) {
        throw new Error(`${settings} is not valid JSON: ${(err as Error).message}`);
      }
    }
  }
  return { home, theirs, user };
}

export const geminiHeadless: HeadlessProfile = {
  bin: 'gemini',
  install: 'npm install -g @google/gemini-cli',
  launch(s) {
    const { home, theirs, user } = linkedHome(s.scratch, process.env);
    const trust =
      process.env.GEMINI_CLI_TRUST_WORKSPACE === undefined && mainTrusted(user, theirs, s.gitCommonDir)
        ? { GEMINI_CLI_TRUST_WORKSPACE: 'true' }
        : {};
    return {
      args: [
        '-p',
        s.prompt,
        '--output-format',
        'stream-json',
        '--approval-mode',
        s.permissionMode ?? 'auto_edit',
        ...(s.resume === undefined ? [] : ['--resume', s.resume]),
      ],
      env: { GEMINI_CLI_HOME: home, ...trust },
      files: [
        {
          path: join(home, '.gemini', 'settings.json'),
          content: `${JSON.stringify(mergedSettings(user, s), null, 2)}\n`,
        },
      ],
    };
  },
  read(line) {
    const e = parsedLine(line);
    if (!e) return [];
    const out: StreamSignal[] = [];
    if (e.type === 'init' && typeof e.session_id === 'string') out.push({ kind: 'session', id: e.session_id });
    if (e.type === 'message' && e.role === 'assistant') out.push({ kind: 'state', state: 'working' });
    if (e.type === 'tool_use') out.push({ kind: 'turn' }, { kind: 'state', state: 'working' });
    // A call its policy denied (headless, nothing is asked); the call's id begins with the tool's name.
    if (e.type === 'tool_result' && obj(e.error).type === 'policy_violation')
      out.push({
        kind: 'refused',
        tool: toolCall(String(e.tool_id ?? '').replace(/__.*$|_\d{6,}.*$/, '') || null, null),
      });
    if (e.type === 'result') {
      const st = obj(e.stats);
      const err = obj(e.error);
      out.push({
        kind: 'result',
        input_tokens: num(st.input_tokens),
        output_tokens: num(st.output_tokens),
        cost_usd: null,
        is_error: e.status === 'error',
        text: typeof err.message === 'string' ? err.message : null,
      });
      const limit = e.status === 'error' ? rateLimit(JSON.stringify(e)) : null;
      if (limit) out.push(limit);
    }
    return out;
  },
  // Gemini CLI retries a 429 itself, and says so on stderr only: `Attempt 1 failed with status 429. Retrying
  // with backoff... ApiError: {…}` (the wait is not in it unless the API's message names one).
  readErr(line) {
    const m = /Attempt \d+ failed with status (\d+)/.exec(line);
    return m ? [{ kind: 'retry', status: Number(m[1]), delayMs: waitOf(line) }] : [];
  },
};

/** A 429 in an error text, with the wait it names. */
function rateLimit(text: string): StreamSignal | null {
  if (!/\b429\b|RESOURCE_EXHAUSTED|rate.?limit|quota/i.test(text)) return null;
  return { kind: 'retry', status: 429, delayMs: waitOf(text) };
}
