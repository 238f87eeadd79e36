/**
 * SPEC §5: where the agent works is learnt from the client, because a stdio
 * server's working directory is not reliable. In order of trust:
 * `CLAUDE_PROJECT_DIR` (read by `coord mcp` itself), the workspaces Codex
 * sends with each call in `_meta["x-codex-turn-metadata"]`, MCP roots, and
 * last the working directory.
 */
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How the session's workspace was found, weakest first: a stronger source replaces a weaker one. */
export const WORKSPACE_SOURCES = ['cwd', 'roots', 'call', 'given'] as const;
export type WorkspaceSource = (typeof WORKSPACE_SOURCES)[number];

export const CODEX_META = 'x-codex-turn-metadata';

/** The first absolute path among Codex's per-call workspaces; the shape is read loosely (string or JSON text, list or map). */
export function codexWorkspace(meta: Record<string, unknown> | undefined): string | undefined {
  const turn = asObject(meta?.[CODEX_META]);
  return turn ? firstPath(turn.workspaces) : undefined;
}

/** Codex's session id from the same metadata, when present. */
export function codexSessionId(meta: Record<string, unknown> | undefined): string | undefined {
  const id = asObject(meta?.[CODEX_META])?.session_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The first `file://` root a client declared. */
export function rootPath(roots: { uri: string }[]): string | undefined {
  for (const r of roots) {
    if (!r.uri.startsWith('file://')) continue;
    try {
      return fileURLToPath(r.uri);
    } catch {
      // not a local file URL: try the next
    }
  }
  return undefined;
}

function asObject(v: unknown): Record<string, unknown> | undefined {
  if (typeof v === 'string') {
    try {
      return asObject(JSON.parse(v));
    } catch {
      return undefined;
    }
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function firstPath(v: unknown, depth = 0): string | undefined {
  if (depth > 3) return undefined;
  if (typeof v === 'string') return v.startsWith('file://') ? rootPath([{ uri: v }]) : isAbsolute(v) ? v : undefined;
  if (Array.isArray(v)) {
    for (const item of v) {
      const p = firstPath(item, depth + 1);
      if (p) return p;
    }
    return undefined;
  }
  const o = asObject(v);
  if (!o) return undefined;
  for (const key of ['path', 'root', 'cwd', 'uri', 'dir', 'directory']) {
    const p = firstPath(o[key], depth + 1);
    if (p) return p;
  }
  for (const key of Object.keys(o)) if (isAbsolute(key)) return key;
  return undefined;
}
