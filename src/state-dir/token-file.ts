/**
 * Where the token is and how it is read: the command hooks read it on every edit, and need none of
 * token.ts's node:crypto (making a token, the hook key) for that.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const tokenPath = (stateDir: string): string => join(stateDir, 'token');

export const readToken = (stateDir: string): string => readFileSync(tokenPath(stateDir), 'utf8').trim();
