import { randomFillSync } from 'node:crypto';

// No 0/o, 1/l/i: agents read these ids aloud and type them.
const ALPHABET = '23456789abcdefghjkmnpqrstuvwxyz';

// Random bytes drawn from a pool refilled 4 KiB at a time: one call into the CSPRNG per ~200 ids, not per id.
const pool = Buffer.alloc(4096);
let used = pool.length;
function randomBytes(n: number): Buffer {
  if (used + n > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  // A copy: the pool's bytes are overwritten at the next refill.
  const out = Buffer.from(pool.subarray(used, used + n));
  used += n;
  return out;
}

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
