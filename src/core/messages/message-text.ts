/**
 * Messages and notes as a model reads them (SPEC §6, §12): one line per message within the
 * inbox's 140-byte budget, the text cut to fit, control characters shown as spaces.
 */
import type { Message, Note } from '../model.js';

const BUDGET = 140;

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const flat = (s: string): string => s.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();

/** `head` + `text`, the text cut (with …) until the line fits `budget` bytes. */
export function fitLine(head: string, text: string, budget = BUDGET): string {
  const chars = [...flat(text)];
  let line = `${head}${chars.join('')}`;
  for (let n = chars.length - 1; Buffer.byteLength(line) > budget && n > 0; n--) {
    line = `${head}${chars.slice(0, n).join('')}…`;
  }
  return line;
}

const ago = (iso: string, now: number): string => {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
};

/** `msg m3k9x2qab from bob 2m re #k3m9x2qa, ack: please take over the parser` */
export function messageLine(m: Message, now: number): string {
  const to = m.to === '*' ? ' to all' : '';
  const re = m.task_id ? ` re #${m.task_id}` : '';
  const ack = m.ack_required ? ', ack' : '';
  return fitLine(`msg ${m.id} from ${m.from.slice(0, 24)}${to} ${ago(m.created_at, now)}${re}${ack}: `, m.text);
}

/** The line pushed into a live session (Claude Code's messaging socket): says what to do with it. */
export function pushLine(m: Message): string {
  const re = m.task_id ? ` about #${m.task_id}` : '';
  const ack = m.ack_required ? ` (acknowledge with ack_message {"message_id":"${m.id}"})` : '';
  return `[coord] message ${m.id} from ${m.from}${re}${ack}: ${m.text}`;
}

export function noteLine(n: Note, now: number): string {
  return fitLine(`- ${n.agent} ${ago(n.at, now)} ago: `, n.text, 400);
}
