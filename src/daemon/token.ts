import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const tokenPath = (stateDir: string): string => join(stateDir, 'token');

/** `<state>/token`: 256 random bits, mode 0600, created on first start and kept after. */
export function ensureToken(stateDir: string): string {
  const path = tokenPath(stateDir);
  try {
    const fd = openSync(path, 'wx', 0o600);
    writeSync(fd, `${randomBytes(32).toString('base64url')}\n`);
    closeSync(fd);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  chmodSync(path, 0o600);
  return readToken(stateDir);
}

export const readToken = (stateDir: string): string => readFileSync(tokenPath(stateDir), 'utf8').trim();
