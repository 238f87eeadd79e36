/**
 * The marked section coord keeps in an agent's instructions file (CLAUDE.md,
 * AGENTS.md, GEMINI.md, .cursor/rules/coord.mdc), between
 * `<!-- coord:begin v=N sha=… -->` and `<!-- coord:end -->`: updated in
 * place, never duplicated, and taken out leaving the rest as it was.
 */
import { sha256Hex } from '../../core/shared/canonical-json.js';

export const SECTION_VERSION = 1;

export const SECTION_BODY = `## coord: the task board and file locks shared by the agents in this repository

Other agents may be working in this repository right now. The \`coord\` MCP server keeps you out of each other's way:

- Read \`inbox\` for work. \`claim_task\` before you start a task: exactly one agent wins; if you lose, pick another.
- \`heartbeat\` while you work; \`submit_result\` when done, or \`release_task\` (with \`to\` to hand it to another agent).
- Files you edit are locked for you while you work on them. An edit refused with \`lock_conflict\` means another agent holds that file: work on something else or ask it (\`who\`). Never work around a lock.
- \`post_task\` to leave work for others.`;

const BEGIN = /<!-- coord:begin[^>]*-->/;
const END = '<!-- coord:end -->';

export function sectionBlock(body = SECTION_BODY): string {
  const sha = sha256Hex(body).slice(0, 12);
  return `<!-- coord:begin v=${SECTION_VERSION} sha=${sha} -->\n${body}\n${END}\n`;
}

/** The text with coord's section current: replaced in place, or appended after a blank line. */
export function upsertSection(text: string | null, block: string, prefix = ''): string {
  const current = text ?? '';
  const found = locate(current);
  if (found) return current.slice(0, found.start) + block + current.slice(found.end);
  if (current === '') return prefix + block;
  const sep = current.endsWith('\n\n') ? '' : current.endsWith('\n') ? '\n' : '\n\n';
  return `${current}${sep}${block}`;
}

/** The text without coord's section (and the blank line it was appended after); null when nothing is left. */
export function removeSection(text: string | null, prefix = ''): string | null {
  if (text === null) return null;
  const found = locate(text);
  if (!found) return text;
  let head = text.slice(0, found.start);
  const tail = text.slice(found.end);
  if (tail === '' && head.endsWith('\n\n')) head = head.slice(0, -1);
  const out = head + tail;
  return out === '' || out === prefix ? null : out;
}

function locate(text: string): { start: number; end: number } | null {
  const m = BEGIN.exec(text);
  if (!m) return null;
  const endAt = text.indexOf(END, m.index);
  if (endAt < 0) return null;
  let end = endAt + END.length;
  if (text[end] === '\n') end++;
  return { start: m.index, end };
}
