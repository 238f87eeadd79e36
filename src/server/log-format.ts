/**
 * How the daemon's log lines read. JSON lines (pino's own) for machines: a log file, a supervisor, a
 * pipe. On a terminal, one short line a person can read: time, level, message, and the fields the line
 * carries besides pino's bookkeeping (pid, hostname), so `coord serve` in a shell is not a wall of JSON.
 */
import type { DestinationStream } from 'pino';

export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** pino's bookkeeping, the same on every line of one daemon. */
const QUIET = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v']);

/** One JSON line from pino as the line a person reads: `14:02:07.481 WARN  sweep failed err="disk full"`. */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = typeof entry.time === 'number' ? clock(new Date(entry.time)) : '';
  const level = (LEVELS[entry.level as number] ?? String(entry.level)).padEnd(5);
  const fields = Object.entries(entry)
    .filter(([key]) => !QUIET.has(key))
    .map(([key, value]) => `${key}=${field(key, value)}`);
  const stack = errorStack(entry.err, entry.level as number);
  return `${[time, level, String(entry.msg ?? ''), ...fields].join(' ')}\n${stack}`;
}

/** A destination that writes each pino line in the human form to `out`. */
export function prettyStream(out: DestinationStream): DestinationStream {
  return { write: (line: string) => out.write(prettyLine(line)) };
}

const two = (n: number) => String(n).padStart(2, '0');
const clock = (d: Date) =>
  `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;

function field(key: string, value: unknown): string {
  if (key === 'err' && value && typeof value === 'object' && 'message' in value) return quote(String(value.message));
  if (typeof value === 'string') return quote(value);
  return JSON.stringify(value) ?? String(value);
}

/** Bare when it is one word, quoted when it has spaces or quotes in it. */
const quote = (s: string) => (/^[^\s"=]+$/.test(s) ? s : JSON.stringify(s));

/** Errors and worse carry their stack, indented under the line; a warning's message is enough. */
function errorStack(err: unknown, level: number): string {
  if (level < 50 || !err || typeof err !== 'object' || !('stack' in err) || typeof err.stack !== 'string') return '';
  return `${err.stack
    .split('\n')
    .slice(1)
    .map((l) => `    ${l.trim()}`)
    .join('\n')}\n`;
}
