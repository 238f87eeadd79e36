/**
 * `coord mcp`'s relay: it relays stdio to the daemon's /mcp (starting a daemon if none runs), and holds a
 * session lock for its whole life so the daemon frees its claims and locks the moment it exits (SPEC rule
 * 13). stdout carries protocol only. An agent waits for it to answer initialize, so what it imports is only
 * what it uses — no SDK server, no zod (names are checked by the same rule as core/schemas.ts, names.ts), no
 * commander (mcp.ts registers the command) — and imported statically: one module graph, read in parallel.
 */
import { identify } from '../../client/agent-identity.js';
import { claudePushFromEnv } from '../../client/claude-push.js';
import { ensureDaemon, findDaemon } from '../../client/daemon-launcher.js';
import { StdioTransport } from '../../client/jsonrpc.js';
import { Bridge } from '../../client/mcp-relay.js';
import { isClientKind, profileOf, sessionClient } from '../../clients/index.js';
import { badAgentReason } from '../../core/edits/edit-request.js';
import { isAgentName, isBoardName } from '../../core/shared/names.js';
import { findRepoRoot } from '../../state-dir/board-name.js';
import { holdSessionLock, type SessionLock } from '../../state-dir/session-lock.js';
import { resolveStateDir } from '../../state-dir/state-dir.js';
import { givenBoard, resolveAgent, resolveBoard } from '../../state-dir/who.js';
import { EXIT } from '../exit-codes.js';
import type { McpFlags } from './mcp.js';
import { serveRefusal } from './mcp-refuse.js';

/** Runs the relay until the agent closes stdin or a signal ends it; never returns. */
export async function runMcp(flags: McpFlags): Promise<void> {
  const env = process.env;
  const log = (message: string) => process.stderr.write(`coord mcp: ${message}\n`);
  // A stdio server's working directory is not reliable: Claude Code names the project it works in.
  const fromClient = Boolean(env.CLAUDE_PROJECT_DIR);
  const workspace = env.CLAUDE_PROJECT_DIR || process.cwd();
  // One agent, one name: the hooks of this client session derive the same name and session (SPEC §10).
  // Without --client (the `.mcp.json` entry Claude Code and Copilot CLI share), the client's session variable.
  const kind = isClientKind(flags.client) ? flags.client : sessionClient(env);
  const identity = kind ? identify(kind, env, { side: 'mcp' }) : null;
  const agent = resolveAgent({ flag: flags.agent, env, session: identity?.agent });
  const board = resolveBoard(flags.board, env, workspace);
  const boardGiven = givenBoard(flags.board, env) !== undefined;
  if (!isToolSurface(flags.tools)) {
    log(`--tools must be lean, core or all, got "${flags.tools}"`);
    process.exit(EXIT.usage);
  }
  // SPEC §17: a client that loads every schema into every request gets the core set unless told otherwise.
  const tools = flags.tools ?? (kind ? profileOf(kind).toolSurface : undefined);
  if (agent !== undefined && !isAgentName(agent)) {
    // Still answer: the client's edit hook asks this server, and no server would let its edits through.
    const reason = badAgentReason(agent) ?? `invalid agent name ${JSON.stringify(agent)}`;
    log(reason);
    await serveRefusal(reason, () => process.exit(EXIT.ok));
    return new Promise<never>(() => {});
  }
  if (!isBoardName(board)) {
    log(`invalid board name "${board}": use 1–64 characters of A-Z a-z 0-9 . _ : # @ / -`);
    process.exit(EXIT.usage);
  }
  const stateDir = resolveStateDir(flags.state, env);
  const session = holdIdentitySession(stateDir, identity?.sessionId, log);
  const headers = relayHeaders({
    board,
    sessionId: session.sessionId,
    workspace,
    guessed: !fromClient && !boardGiven,
    agent,
    tools,
    kind,
    claim: env.COORD_CLAIM,
  });
  // Claude Code's messaging socket, when it offers one (SPEC §12): the bridge names the agent in `headers`.
  const push = claudePushFromEnv(env, {
    board,
    agent: () => headers['coord-agent'],
    find: () => findDaemon(stateDir),
    log,
    stateDir,
  });
  push?.start();
  const bridge = new Bridge({
    agent: new StdioTransport(),
    connect: () =>
      ensureDaemon({ stateDir, env, log, command: [process.execPath, ...process.execArgv, process.argv[1] ?? ''] }),
    find: () => findDaemon(stateDir),
    headers,
    log,
  });
  const exit = () => {
    push?.close();
    session.release();
    process.exit(EXIT.ok);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => void bridge.close().finally(exit));
  }
  await bridge.run();
  exit();
}

/**
 * The client session's own session lock, so the locks its hooks take die with it; when another
 * `coord mcp` of the same client process holds it already, a session of this process's own.
 */
function holdIdentitySession(stateDir: string, id: string | undefined, log: (m: string) => void): SessionLock {
  if (id === undefined) return holdSessionLock(stateDir);
  try {
    return holdSessionLock(stateDir, id);
  } catch {
    log(`session ${id} is held by another coord mcp of this client; using a session of its own`);
    return holdSessionLock(stateDir);
  }
}

const isToolSurface = (tools: string | undefined) =>
  tools === undefined || tools === 'lean' || tools === 'core' || tools === 'all';

/** What the relay tells the daemon on every request: whose session it is, on which board, from where. */
function relayHeaders(o: {
  board: string;
  sessionId: string;
  workspace: string;
  guessed: boolean;
  agent: string | undefined;
  tools: string | undefined;
  kind: string | null | undefined;
  claim: string | undefined;
}): Record<string, string> {
  return {
    'coord-board': o.board,
    'coord-session': o.sessionId,
    // Outside a repository, the working directory is the root that file paths are relative to.
    'coord-root': encodeURIComponent(findRepoRoot(o.workspace) ?? o.workspace),
    // Only a guess from the working directory may be replaced by what the client says per call or in roots.
    ...(o.guessed ? { 'coord-workspace': 'guessed' } : {}),
    ...(o.agent ? { 'coord-agent': o.agent } : {}),
    ...(o.tools ? { 'coord-tools': o.tools } : {}),
    ...(o.kind ? { 'coord-client': o.kind } : {}),
    // SPEC §18: an agent `coord run` started holds its claim from its first call.
    ...(o.claim ? { 'coord-claim': o.claim } : {}),
  };
}
