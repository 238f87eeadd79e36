import { randomBytes } from 'node:crypto';

// No 0/o, 1/l/i: agents read these ids aloud and type them.
const ALPHABET = '23456789abcdefghjkmnpqrstuvwxyz';

function randomString(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

/** Task ids: 8 chars (~39 bits); the store retries on the rare collision. */
export const newTaskId = (): string => randomString(8);
/** claim_id: 128 random bits, the fencing token. */
export const newClaimId = (): string => `c_${randomBytes(16).toString('base64url')}`;
export const newLockId = (): string => `l_${randomBytes(12).toString('base64url')}`;
/** Message ids: `m` + 8 chars, typed by agents (`coord ack m…`); the store retries on a collision. */
export const newMessageId = (): string => `m${randomString(8)}`;
export const newNoteId = (): string => `n${randomString(10)}`;
