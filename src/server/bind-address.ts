/**
 * Where the daemon listens, and what that means for its URL and the Host names it accepts.
 * Loopback by default; any other address is reachable from other machines (SPEC §4 names only
 * 127.0.0.1, so `coord serve --host` says so out loud).
 */
import { isIPv6 } from 'node:net';

const WILDCARDS = new Set(['0.0.0.0', '::']);

export const isWildcard = (addr: string): boolean => WILDCARDS.has(addr);

/** 127.0.0.0/8, ::1 and the IPv4-mapped loopback: no other machine can reach these. */
export function isLoopback(addr: string): boolean {
  const v4 = addr.startsWith('::ffff:') ? addr.slice(7) : addr;
  return v4.startsWith('127.') || addr === '::1';
}

/** `host:port` as it appears in a Host header and a URL: IPv6 in brackets. */
export const hostPort = (addr: string, port: number): string => `${isIPv6(addr) ? `[${addr}]` : addr}:${port}`;

/**
 * The origin written to daemon.json and printed. A wildcard listens on loopback too, and local
 * clients should keep using loopback; a specific address is the only place the daemon answers.
 */
export const daemonOrigin = (addr: string, port: number): string =>
  `http://${hostPort(isWildcard(addr) ? '127.0.0.1' : addr, port)}`;

/** Host values to accept besides the loopback names: a specific address the daemon bound to. */
export function boundHosts(addr: string, port: number): string[] {
  if (isWildcard(addr) || addr === '127.0.0.1' || addr === '::1') return [];
  return [hostPort(addr, port)];
}

/** The stderr warning for an address other machines can reach, or null on loopback. */
export function exposureWarning(addr: string, port: number): string | null {
  if (isLoopback(addr)) return null;
  const where = hostPort(addr, port);
  const names = isWildcard(addr)
    ? ` Requests must still name an allowed Host: add --allow-host <name>:${port} for each name other machines use.`
    : '';
  return `listening on ${where} — reachable from other machines; anyone with the token can use the board.${names}`;
}
