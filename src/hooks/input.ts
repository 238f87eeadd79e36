/**
 * What a client tells its hook on stdin (JSON), and the paths a write tool is
 * about to touch: Claude Code `tool_input.file_path` / `notebook_path`,
 * Gemini CLI `file_path`, Cursor `file_path`/`path`, and Codex `apply_patch`,
 * whose patch text names its files on `*** Add File:`, `*** Update File:`,
 * `*** Delete File:` and `*** Move to:` lines.
 */
export type HookInput = Record<string, unknown>;

/** All of stdin as JSON; `{}` when there is none (a terminal, or an empty pipe). */
export async function readInput(stdin: NodeJS.ReadStream = process.stdin): Promise<HookInput> {
  if (stdin.isTTY) return {};
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as HookInput) : {};
  } catch {
    return {};
  }
}

const PATH_KEYS = ['file_path', 'notebook_path', 'absolute_path', 'filePath', 'path', 'target_file'];
const PATCH_LINE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$/gm;

/**
 * The tool call in the hook's input, read where the client's profile says it is: its name, and its
 * arguments — an object, or a JSON string of one (some clients send it so).
 */
export function toolCall(
  input: HookInput,
  where: { toolName: readonly string[]; toolInput: readonly string[] },
): { name?: string; args?: Record<string, unknown> } {
  const name = where.toolName.map((k) => input[k]).find((v) => typeof v === 'string');
  for (const key of where.toolInput) {
    const args = asRecord(input[key]) ?? asRecord(parseJson(input[key]));
    if (args) return { ...(name ? { name } : {}), args };
  }
  return name ? { name } : {};
}

const parseJson = (v: unknown): unknown => {
  if (typeof v !== 'string') return undefined;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return undefined;
  }
};

/** The paths the tool call would write, as given (absolute, or relative to the session's cwd). */
export function pathsToWrite(input: HookInput): string[] {
  const tool = toolCall(input, { toolName: [], toolInput: ['tool_input', 'toolInput'] }).args ?? {};
  const out: string[] = [];
  for (const key of PATH_KEYS) {
    const v = tool[key];
    if (typeof v === 'string' && v.trim() !== '') out.push(v);
  }
  for (const key of ['command', 'patch', 'patchText', 'input']) {
    const v = tool[key];
    if (typeof v === 'string' && v.includes('*** ')) out.push(...patchPaths(v));
  }
  // MultiEdit-style lists of edits, each naming its file.
  if (Array.isArray(tool.edits)) {
    for (const e of tool.edits) {
      const p = asRecord(e)?.file_path;
      if (typeof p === 'string') out.push(p);
    }
  }
  return [...new Set(out)];
}

/** The files an `apply_patch` patch adds, updates, deletes or moves to. */
export function patchPaths(patch: string): string[] {
  return [...patch.matchAll(PATCH_LINE)].map((m) => m[1] ?? '').filter(Boolean);
}

export const asRecord = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
