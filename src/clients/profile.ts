/**
 * A client profile (SPEC §17): everything coord knows about one agent client, in one place —
 * where its configuration lives and in what format, its hook contract (what its hooks read on
 * stdin, how they block, add context and keep it going), what names its session for the MCP
 * server and the hooks alike, its edit and shell tool names, and how its wrapper shows a tool
 * result to its model. Setup (cli/setup), the hooks (hooks/) and identity (client/agent-identity.ts)
 * read it; adding a client is one file in this folder and one line in its table (index.ts).
 *
 * This folder is data and small pure functions only: the hooks load it on every edit, so it
 * imports nothing but itself (test/architecture/imports.test.ts, hook-weight.test.ts).
 */

/** What a hook prints and exits with. */
export interface Spoken {
  code: number;
  stdout: string;
  stderr: string;
}

/** The hook events coord installs, in coord's words (each client names them its own way). */
/**
 * `notify`: the client tells its user the agent waits (a permission prompt, a question: SPEC §19); `resume`: the
 * agent goes on (a new prompt, a tool that ran) — together they keep `coord attention`'s waiting agents true.
 */
export type ClientEvent = 'pre-edit' | 'session-start' | 'stop' | 'pre-shell' | 'post-shell' | 'notify' | 'resume';

export type Scope = 'user' | 'project';

// ─── configuration files ──────────────────────────────────────────────────────────────────────

export type JsonPath = string[];

/** One undoable edit of a JSON config (cli/setup/json-file.ts applies and undoes it). */
export type JsonEdit =
  /**
   * `path` = value (an object value is set whole: it is coord's own entry, e.g. mcpServers.coord).
   * `shared`: a key the user's own entries need too (Cursor's hooks.json `version`): --remove puts
   * back what it was before setup, and without setup's record leaves it.
   */
  | { op: 'set'; path: JsonPath; value: unknown; shared?: boolean }
  /** `path` is a list that should hold `item`. */
  | { op: 'union'; path: JsonPath; item: unknown }
  /** `path` is a list of hook groups: coord's group (found by `mark` in a command) is this one. */
  | { op: 'group'; path: JsonPath; group: Record<string, unknown>; mark: string };

/** What Codex's `config.toml` gets (cli/setup/codex-toml.ts writes the block and records its hooks' trust). */
export interface CodexTomlBlock {
  mcpCommand: string;
  mcpArgs: string[];
  preEdit: string;
  /** SPEC §10 shell edits: before and after its shell tool (hooks see it as `Bash`). */
  preShell: string;
  postShell: string;
  prime: string;
  stop: string;
  /** SPEC §19: before Codex asks its user to approve a command (PermissionRequest), and at a user prompt. */
  notify?: string;
  resume?: string;
}

/**
 * One file setup writes, in a format cli/setup knows how to apply and undo exactly: `json`, a JSON
 * object file whose coord part is a list of edits; `section`, a markdown instructions file holding
 * coord's marked section; `codex-toml`, Codex's config.toml; `file`, a whole file coord ships.
 */
export type ConfigFile = { path: string; what: string } & (
  | { format: 'json'; edits: JsonEdit[] }
  /** A markdown instructions file holding coord's marked section (after `prefix` when coord creates it). */
  | { format: 'section'; prefix?: string }
  /** Codex's config.toml: coord's marked block. */
  | { format: 'codex-toml'; block: CodexTomlBlock }
  /** A whole file coord ships and owns (a plugin, an extension): written as given, deleted on --remove. */
  | { format: 'file'; content: string }
);

/** What a profile needs to say which files setup writes. */
export interface SetupSpec {
  scope: Scope;
  /** The work tree setup runs in (project scope writes there). */
  root: string;
  /** $HOME. */
  home: string;
  env: NodeJS.ProcessEnv;
  /** How to start `coord mcp` for this client: an absolute node and its arguments. */
  mcp: { command: string; args: string[] };
  /** The shell command line of coord's hook for an event (`node …/coord.js hook pre-edit --client X …`). */
  hook(event: ClientEvent): string;
  /** The same hook as an argument vector, for a plugin that starts it without a shell. */
  hookArgv(event: ClientEvent): string[];
  /** The file URL of a plugin module coord ships (`src/plugins/<name>`, built into `dist/plugins/`). */
  pluginModule(name: 'opencode' | 'cline' | 'pi'): string;
  /** The text that finds coord's hook for an event in the client's hook list (unique per event and client). */
  mark(event: ClientEvent): string;
  /**
   * The daemon's hook route for a client's own `http` hook (SPEC §10 "the client's cheapest hook"): its URL
   * for an event and the hook key it takes. Absent where setup must not write a key (project scope: the file
   * may be committed) — the profile then writes command hooks.
   */
  httpHook?: { url(event: ClientEvent): string; key: string } | undefined;
}

export interface SetupProfile {
  /** Where `coord setup <client>` writes when no --scope is given. */
  defaultScope: Scope;
  files(s: SetupSpec): ConfigFile[];
  /** A step after the files are written: Codex runs hooks only once `codex app-server` trusted them. */
  after?: 'codex-trust';
}

// ─── hooks ────────────────────────────────────────────────────────────────────────────────────

export interface HookContract {
  /** The client's own name of each event coord hooks into; an event missing here is not installed. */
  events: Partial<Record<ClientEvent, string>>;
  /** Fields of the hook's stdin that name the tool and carry its input (the input may be a JSON string). */
  input: { toolName: readonly string[]; toolInput: readonly string[] };
  /** Refuse the tool call: the model reads `reason` (in the client's own wrapping). */
  deny(reason: string, event: ClientEvent): Spoken;
  /** Add context for the model (session start). */
  context(text: string, event: ClientEvent): Spoken;
  /**
   * Let the tool call go ahead and add one line the model reads (pre-edit: SPEC §14's warning of changes not
   * merged yet in another work tree). A client without it gets the line on stderr, as other warnings.
   */
  allowNoting?(text: string, event: ClientEvent): Spoken;
  /** Keep the agent going with `reason` (stop). */
  keepGoing(reason: string, event: ClientEvent): Spoken;
  /**
   * Tell the model, after a shell command, what it changed that it must not have (SPEC §10 shell
   * edits): the answer must reach the model and should keep the command's output.
   */
  afterShell(reason: string, event: ClientEvent): Spoken;
}

// ─── identity ─────────────────────────────────────────────────────────────────────────────────

/**
 * What names one client session for its MCP server and its hooks alike (SPEC §10 "one agent,
 * one name"). The first that is present wins; when none is, the client process both descend from
 * (its pid and start time), and when there is no such process (a client running as PID 1 inside a
 * container, a detached hub), a stable fallback of client, user and host.
 */
export interface IdentityProfile {
  /** Environment variables carrying the session id in the MCP server's environment. */
  mcpEnv: readonly string[];
  /** Environment variables carrying the same id in the hooks' environment. */
  hookEnv: readonly string[];
  /** A field of the hook's stdin carrying the same id the MCP server sees in `mcpEnv`. */
  hookField?: string;
}

// ─── tools and what the model receives ────────────────────────────────────────────────────────

export interface ToolNames {
  /**
   * The client's file-writing tools, by exact name (the pre-edit matcher setup writes, and the
   * tools the hook guards when the client runs it for every tool).
   */
  edit: readonly string[];
  /** Tools that only read, by exact name: skipped by a hook the client runs for every tool. Never a prefix. */
  readOnly: readonly string[];
  /** Its shell tool(s): edits made from the shell are seen after them (SPEC §10). */
  shell: readonly string[];
  /** Whether the client runs the pre-edit hook for every tool (then the hook filters by name). */
  hookSeesEveryTool: boolean;
}

/**
 * How the client's wrapper shows coord's tool result to its model:
 * - `text`: the result's text content (Cursor, Copilot CLI);
 * - `structured`: `structuredContent` serialised when present, else the text (Claude Code, Codex);
 * - `failing-object`: the text on success; on `isError` the whole result object, `_meta` included,
 *   wrapped in the client's long error line (Gemini CLI, Qwen Code): coord sends them a failure
 *   unflagged, as its text (server/mcp/errors.ts);
 * - `whole-json`: the whole `CallToolResult` as JSON, always (Cline).
 */
export type ResultWrapper = 'text' | 'structured' | 'failing-object' | 'whole-json';

// ─── headless: how `coord run` starts it (SPEC §18) ─────────────────────────────────────────

/** What the supervisor gives a profile to build one headless launch. */
export interface HeadlessSpec {
  prompt: string;
  /** The task's work tree: the client starts there. */
  cwd: string;
  /** `coord mcp` for this client (absolute node and its arguments). */
  mcp: { command: string; args: string[] };
  /** The shell command line of coord's hook for an event. */
  hook(event: ClientEvent): string;
  mark(event: ClientEvent): string;
  /** `--permission-mode`, passed on as the client's own; absent: the profile's default (edit and commit). */
  permissionMode?: string | undefined;
  maxTurns?: number | undefined;
  /** A session to resume (the client's own id, read from its event stream). */
  resume?: string | undefined;
  /** The main repository's git directory (a linked work tree's git data lives there). */
  gitCommonDir: string;
  /**
   * A folder of this launch's own, outside the work tree, made empty before the start and removed after the
   * process ends: where a client that reads hooks or plugins only from files gets them (HeadlessLaunch.files).
   */
  configDir?: string | undefined;
  /** coord's hook for an event as an argument vector (for a plugin that starts it without a shell). */
  hookArgv?(event: ClientEvent): string[];
  /** The daemon's hook URL per event and its hook key, for `http` hooks (written only inside `configDir`). */
  httpHook?: { url(event: ClientEvent): string; key: string } | undefined;
  /** The file URL of a plugin module coord ships (`dist/plugins/<name>.js`). */
  pluginModule?(name: 'opencode'): string;
  /** coord's variables of this agent (COORD_AGENT, COORD_CLAIM, …), for a client that does not pass its environment on to MCP servers. */
  coordEnv: Record<string, string>;
  /** A folder of this launch's own (in coord's state directory) for files the client is pointed at. */
  scratch: string;
}

/** One launch: the arguments after the executable, and variables added to the environment. */
export interface HeadlessLaunch {
  args: string[];
  env: Record<string, string>;
  /** Files written before the start, each inside `configDir` or `scratch` (the user's own files are never written). */
  files?: { path: string; content: string }[];
}

/** What one line of the client's event stream (stdout) says, in coord's words. */
export type StreamSignal =
  | { kind: 'session'; id: string }
  | { kind: 'state'; state: 'working' | 'idle' | 'waiting' }
  /** The client will retry the model API itself after `delayMs` (HTTP `status`, 429 for a usage limit). */
  | { kind: 'retry'; status: number | null; delayMs: number | null }
  | { kind: 'turn' }
  /** A tool call the client's permission mode refused, headless (no one to ask): `Bash(npm test)`. */
  | { kind: 'refused'; tool: string }
  | {
      kind: 'result';
      input_tokens: number | null;
      output_tokens: number | null;
      cost_usd: number | null;
      is_error: boolean;
      text: string | null;
    };

export interface HeadlessProfile {
  /** The executable looked up on PATH. */
  bin: string;
  /** How a person installs it, for the error when it is not found. */
  install: string;
  launch(s: HeadlessSpec): HeadlessLaunch;
  /** Read one line of stdout (pure; lines that say nothing coord reads give []). */
  read(line: string): StreamSignal[];
  /** Read one line of stderr: a usage limit or retry notice some clients print there. */
  readErr?(line: string): StreamSignal[];
}

export interface ClientProfile {
  /** coord's name for it: `coord setup <kind>`, `--client <kind>`, the agent name's prefix. */
  kind: string;
  /** Its product name, for messages and docs. */
  title: string;
  /** Whether this environment is a hook or server started by this client (used when no --client is given). */
  detect(env: NodeJS.ProcessEnv): boolean;
  setup: SetupProfile;
  hooks: HookContract;
  identity: IdentityProfile;
  tools: ToolNames;
  /**
   * `all` where the client defers tools behind a search; else coord's core set (SPEC §17), or its lean
   * part where the client adds bytes of its own to every tool it offers (Gemini CLI).
   */
  toolSurface: 'all' | 'core' | 'lean';
  /**
   * Bytes the client adds to every tool definition it sends its model, measured with the real client
   * (Gemini CLI 0.61.0: its `wait_for_previous` argument, 260 B): counted against SPEC §17's budget.
   */
  addsPerTool?: number;
  /** The names it gives itself in MCP `initialize` (clientInfo.name): how an HTTP session is told apart. */
  mcpClientNames?: readonly string[];
  /** The name the model sees for coord's tool `tool`. */
  mcpToolName(tool: string): string;
  result: ResultWrapper;
  /** SPEC §18: how `coord run` starts it headless; absent where the client has no headless mode. */
  headless?: HeadlessProfile;
}
