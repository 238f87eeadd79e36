import { createHmac, randomBytes } from 'node:crypto';
import { writePrivateFile } from './private-file.js';
import { readToken, tokenPath } from './token-file.js';

export { readToken, tokenPath } from './token-file.js';

/** Shorter than this (16 characters) a token file is not a key: empty after a crash, or typed by hand. */
const MIN_TOKEN_LENGTH = 16;

export interface EnsuredToken {
  token: string;
  /** The file held no usable token (missing counts as not replaced) and a new one was written. */
  replaced: boolean;
}

/**
 * `<state>/token`: 256 random bits, mode 0600, created on first start and kept after. A file left
 * empty or too short (a crash between create and write, or a hand edit) would make the empty
 * string the key to the board, so it is replaced. The caller tightens a looser mode (private-state.ts).
 */
export function ensureToken(stateDir: string): EnsuredToken {
  let existing: string | null = null;
  try {
    existing = readToken(stateDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (existing !== null && existing.length >= MIN_TOKEN_LENGTH && !/\s/.test(existing))
    return { token: existing, replaced: false };
  const token = randomBytes(32).toString('base64url');
  writePrivateFile(tokenPath(stateDir), `${token}\n`);
  return { token, replaced: existing !== null };
}

/**
 * The hook key (SPEC §10, a client's own `http` hook): what `coord setup` writes into a client's user settings
 * for the daemon's hook routes, and the only thing it opens — derived from the token, so it changes with it and
 * the token itself is never written into a client's settings. Local only, like the token.
 */
export const hookKeyOf = (token: string): string =>
  createHmac('sha256', token).update('coord hook key v1').digest('base64url');
