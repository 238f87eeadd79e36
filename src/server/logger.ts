import { type DestinationStream, type Logger, pino } from 'pino';
import { type LogFormat, prettyStream } from './log-format.js';

/**
 * Where a secret could ride into a log line: a request's headers (Authorization, Cookie) or a field
 * named token. Nothing logs them today; this keeps a future `log.debug({ req })` from leaking one.
 */
export const REDACT_PATHS = [
  'authorization',
  'token',
  '*.authorization',
  '*.token',
  'headers.authorization',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
];

/** Logs go to stderr: stdout belongs to MCP's stdio protocol. JSON lines unless `format` asks for the human form. */
export const makeLogger = (
  level: string,
  destination: DestinationStream = pino.destination(2),
  format: LogFormat = 'json',
): Logger =>
  pino(
    { level, base: { pid: process.pid }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    format === 'pretty' ? prettyStream(destination) : destination,
  );
