import { type DestinationStream, type Logger, pino } from 'pino';

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

/** Logs go to stderr: stdout belongs to MCP's stdio protocol. */
export const makeLogger = (level: string, destination: DestinationStream = pino.destination(2)): Logger =>
  pino({ level, base: { pid: process.pid }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
