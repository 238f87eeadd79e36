/**
 * The MCP configuration each client needs to launch `coord mcp`, and how to
 * add it without touching anything else: JSON is merged key by key, TOML
 * gets a section appended only when it has none, and an existing `coord`
 * entry is always left as it is.
 */

export const CLIENTS = ['claude', 'cursor', 'codex'] as const;
export type ClientName = (typeof CLIENTS)[number];

/** How to launch `coord mcp`: absolute paths, because GUI-launched clients do not see the shell's PATH. */
export interface Launch {
  command: string;
  args: string[];
}

export const SERVER_NAME = 'coord';

/** POSIX shell quoting, only where needed. */
export const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** `claude mcp add` with user scope: coord picks the board from the repository it runs in. */
export const claudeAddArgs = (l: Launch): string[] => [
  'mcp',
  'add',
  '--scope',
  'user',
  SERVER_NAME,
  '--',
  l.command,
  ...l.args,
];

export function cursorEntry(l: Launch): Record<string, unknown> {
  return { mcpServers: { [SERVER_NAME]: { command: l.command, args: l.args } } };
}

/** The new file text, or why it stays as it is: coord is `present` already, or the file could not be read as config. */
export type Merge = { changed: true; text: string } | { changed: false; present: boolean; reason: string };

/** `.cursor/mcp.json`: add `mcpServers.coord`, keep every other key and server. */
export function mergeCursorJson(existing: string | null, l: Launch): Merge {
  let doc: Record<string, unknown> = {};
  if (existing !== null && existing.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(existing);
    } catch {
      return { changed: false, present: false, reason: 'it is not valid JSON — fix it, then run again' };
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return { changed: false, present: false, reason: 'it is not a JSON object' };
    }
    doc = parsed as Record<string, unknown>;
  }
  const servers = doc.mcpServers ?? {};
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    return { changed: false, present: false, reason: 'its mcpServers is not an object' };
  }
  if (SERVER_NAME in servers)
    return { changed: false, present: true, reason: 'it already has a coord server (left as it is)' };
  const next = { ...doc, mcpServers: { ...servers, [SERVER_NAME]: { command: l.command, args: l.args } } };
  return { changed: true, text: `${JSON.stringify(next, null, 2)}\n` };
}

export function codexSection(l: Launch): string {
  // JSON strings are valid TOML basic strings for any path.
  const args = l.args.map((a) => JSON.stringify(a)).join(', ');
  return `[mcp_servers.${SERVER_NAME}]\ncommand = ${JSON.stringify(l.command)}\nargs = [${args}]\n`;
}

/** `~/.codex/config.toml`: append the section only when no `[mcp_servers.coord]` exists. */
export function mergeCodexToml(existing: string | null, l: Launch): Merge {
  const text = existing ?? '';
  if (/^\s*\[\s*mcp_servers\s*\.\s*("coord"|'coord'|coord)\s*\]/m.test(text)) {
    return { changed: false, present: true, reason: 'it already has [mcp_servers.coord] (left as it is)' };
  }
  const sep = text === '' ? '' : text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
  return { changed: true, text: `${text}${sep}${codexSection(l)}` };
}
