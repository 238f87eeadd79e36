/**
 * What a client tells its hook on stdin (JSON), and the paths a write tool is
 * about to touch: Claude Code `tool_input.file_path` / `notebook_path`,
 * Gemini CLI `file_path`, Cursor `file_path`/`path`, and Codex `apply_patch`,
 * whose patch text names its files on `*** Add File:`, `*** Update File:`,
 * `*** Delete File:` and `*** Move to:` lines.
 */
export type HookInput = Record<string, unknown>;

/** More than this on stdin is no client's hook input: refused under COORD_GUARD=strict, warned otherwise. */
export const MAX_INPUT_BYTES = 8 * 1024 * 1024;

/** Hook input that cannot be read as the client's JSON: the hook cannot tell what the tool would write. */
export class BadHookInput extends Error {}

/**
 * All of stdin as JSON; `{}` when there is none (a terminal, or an empty
 * pipe). Anything else that is not one JSON object — malformed, an array,
 * oversized — throws BadHookInput: a pre-edit hook must not read "no paths"
 * into input it could not read (SPEC §10, strict means strict).
 */
export async function readInput(stdin: NodeJS.ReadStream = process.stdin): Promise<HookInput> {
  if (stdin.isTTY) return {};
  // Plain 'data'/'end' events: an async iterator over the stream costs a hook ~1 ms more to set up.
  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stdin.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_INPUT_BYTES) {
        stdin.destroy();
        reject(new BadHookInput(`the hook input is larger than ${MAX_INPUT_BYTES} bytes`));
      } else chunks.push(chunk);
    });
    stdin.once('end', () => resolve(Buffer.concat(chunks).toString('utf8').trim()));
    stdin.once('error', reject);
  });
  if (!text) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new BadHookInput('the hook input is not JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new BadHookInput('the hook input is not a JSON object');
  return v as HookInput;
}

const PATH_KEYS = ['file_path', 'notebook_path', 'absolute_path', 'filePath', 'path', 'target_file'];
/**
 * Codex's patch headers (codex-rs/apply-patch/src/parser.rs): a header line is
 * matched after Rust's `trim()` — any Unicode white space before and after,
 * tab and no-break space included — and the path is the rest of the line; a
 * `*** Move to:` line is matched as it stands. Lines are split on `\n` only
 * (a trailing `\r` dropped), as Rust's `lines()` does.
 */
const PATCH_HEADER = /^\*\*\* (?:Add File|Update File|Delete File|Move to): /;
/** Rust's `char::is_whitespace` (Unicode White_Space) — JS's `\s` lacks U+0085. */
const RUST_SPACE = /^[\s\u0085]+|[\s\u0085]+$/g;

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

/**
 * The files an `apply_patch` patch adds, updates, deletes, moves from or moves
 * to — every one Codex's parser could read as a header, and a little more
 * (an indented header line inside a hunk is taken too): naming a file the
 * patch does not touch costs a lock check, missing one lets an edit through.
 */
export function patchPaths(patch: string): string[] {
  const out: string[] = [];
  for (const raw of patch.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const trimmed = line.replace(RUST_SPACE, '');
    const header = PATCH_HEADER.exec(trimmed);
    if (!header) continue;
    const path = trimmed.slice(header[0].length);
    if (path) out.push(path);
    // `*** Move to:` is read untrimmed: its path may end in spaces Codex keeps.
    const asIs = PATCH_HEADER.exec(line);
    const untrimmed = asIs ? line.slice(asIs[0].length) : '';
    if (untrimmed && untrimmed !== path) out.push(untrimmed);
  }
  return [...new Set(out)];
}

export const asRecord = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
