/**
 * Who an MCP session acts as, and what it remembers. The agent name is fixed
 * for the session's life: `--agent`/`Coord-Agent` when given, else the MCP
 * client's name plus a short random suffix (SPEC §5). The session remembers
 * the claims it won, so a model may leave `claim_id` out of later calls.
 */

import { CoordError } from '../../core/errors.js';
import { derivedAgentName } from '../../core/shared/agent-name.js';
import { boardForDir, findRepoRoot } from '../../state-dir/board-name.js';
import { WORKSPACE_SOURCES, type WorkspaceSource } from './workspace.js';

export interface SessionIdentity {
  /** The agent name asked for, or null to derive one from the client's name. */
  agent: string | null;
  board: string;
  /** Repository root that file paths are made relative to; null when unknown. */
  root: string | null;
  /** Ties claims and locks to this session (SPEC rule 13): the `coord mcp` session lock's uuid, or the HTTP session's. */
  id: string;
  /**
   * How board and root were found: `cwd` when only guessed from a working directory, so what the
   * client says (Codex's per-call workspaces, MCP roots) may replace them. Default `given`.
   */
  workspace?: WorkspaceSource;
}

export class McpSession {
  private readonly claims = new Map<string, string>();
  private derived: string | undefined;
  /** The MCP client's self-declared name, known once it has initialised. */
  private clientName: () => string | undefined = () => undefined;

  private board_: string;
  private root_: string | null;
  private source: WorkspaceSource;

  constructor(readonly identity: SessionIdentity) {
    this.board_ = identity.board;
    this.root_ = identity.root;
    this.source = identity.workspace ?? 'given';
  }

  /**
   * The client named the folder it works in: it replaces a weaker guess (SPEC §5 order). The board
   * follows the folder's repository; outside any, the board stays and only the root moves.
   */
  learnWorkspace(dir: string, from: WorkspaceSource): void {
    if (WORKSPACE_SOURCES.indexOf(from) < WORKSPACE_SOURCES.indexOf(this.source) || this.source === 'given') return;
    this.source = from;
    this.root_ = findRepoRoot(dir) ?? dir;
    this.board_ = boardForDir(dir) ?? this.board_;
  }

  /** Called by each MCP server that serves this session (a reconnecting bridge keeps its name). */
  nameClient(name: () => string | undefined): void {
    this.clientName = name;
  }

  get id(): string {
    return this.identity.id;
  }
  get board(): string {
    return this.board_;
  }
  get root(): string | null {
    return this.root_;
  }

  get agent(): string {
    if (this.identity.agent) return this.identity.agent;
    this.derived ??= derivedAgentName(this.clientName());
    return this.derived;
  }

  /** The longest lease this session asked for, in ms: an HTTP session idle longer than this holds nothing live. */
  longestLeaseMs = 0;

  noteLease(leaseS: unknown): void {
    if (typeof leaseS === 'number' && Number.isFinite(leaseS))
      this.longestLeaseMs = Math.max(this.longestLeaseMs, leaseS * 1000);
  }

  remember(taskId: string, claimId: string): void {
    this.claims.set(taskId, claimId);
  }

  /** The claim_id given, else the one this session won for the task. */
  claimIdFor(taskId: string, given: unknown): unknown {
    if (given !== undefined) return given;
    const known = this.claims.get(taskId.replace(/^#/, ''));
    if (known) return known;
    throw new CoordError(
      'not_claimed',
      `this session holds no claim on #${taskId} — claim it with claim_task first, or pass the claim_id you were given`,
      { task_id: taskId },
    );
  }
}
