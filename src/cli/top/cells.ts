/**
 * Text for terminal cells: how many columns a string takes, and cutting it to fit. A title in CJK or with
 * emoji takes two columns a character; counting code units instead would push a line past the edge.
 * Control characters are shown in caret notation first (another agent's text must not drive the terminal),
 * and the markup characters of the UI library ({ and }) are escaped last.
 */
import { terminalText } from '../terminal-text.js';

/** Code points that take two columns: Hangul Jamo, CJK, Hangul syllables, compatibility and fullwidth forms, emoji. */
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x2e80, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1faff],
  [0x20000, 0x3fffd],
];

function isWide(cp: number): boolean {
  if (cp === 0x303f) return false; // the ideographic half fill space, inside the CJK range, takes one column
  for (const [lo, hi] of WIDE) if (cp >= lo && cp <= hi) return true;
  return false;
}
const isZeroWidth = (cp: number): boolean =>
  (cp >= 0x0300 && cp <= 0x036f) || (cp >= 0x200b && cp <= 0x200f) || cp === 0xfe0f || cp === 0xfe0e;

export function width(s: string): number {
  let w = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    w += isZeroWidth(cp) ? 0 : isWide(cp) ? 2 : 1;
  }
  return w;
}

/** Plain text cut to `cols` columns (with … when cut), padded with spaces to exactly `cols` when `pad`. */
export function fit(s: string, cols: number, pad = false): string {
  const text = terminalText(s).replace(/[\n\t]/g, ' ');
  if (cols <= 0) return '';
  let out = '';
  let w = 0;
  if (width(text) > cols) {
    for (const ch of text) {
      const cw = width(ch);
      if (w + cw > cols - 1) break;
      out += ch;
      w += cw;
    }
    out += '…';
    w += 1;
  } else {
    out = text;
    w = width(text);
  }
  return pad ? out + ' '.repeat(Math.max(0, cols - w)) : out;
}

/** Escapes the UI library's tag characters in text that came from users. */
export const esc = (s: string): string => s.replace(/[{}]/g, (c) => (c === '{' ? '{open}' : '{close}'));

/** A cell: text fitted, then escaped, then (when colours are on) wrapped in a tag. */
export function cell(s: string, cols: number, style: string | undefined, color: boolean, pad = true): string {
  const body = esc(fit(s, cols, pad));
  return style && color ? `{${style}}${body}{/${style}}` : body;
}

/** A column of a row: the cell and one space after it, so neighbours never touch. */
export const column = (s: string, cols: number, style: string | undefined, color: boolean): string =>
  `${cell(s, cols - 1, style, color)} `;

export function countdown(leaseUntil: string | null, now: number): string {
  if (!leaseUntil) return '';
  const ms = Date.parse(leaseUntil) - now;
  if (!(ms > 0)) return 'lapsed';
  const s = Math.ceil(ms / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

export const clock = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toISOString().slice(11, 19) : '--:--:--';
