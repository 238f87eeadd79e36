import { type Logger, pino } from 'pino';

/** Logs go to stderr: stdout belongs to MCP's stdio protocol. */
export const makeLogger = (level: string): Logger => pino({ level, base: { pid: process.pid } }, pino.destination(2));
