/** Secrets handed out by the OAuth edge: 256 random bits, a prefix that says what it is (for log scanners). */
import { randomBytes } from 'node:crypto';

export type SecretKind =
  | 'ccs' /** client secret */
  | 'cac' /** authorization code */
  | 'cat' /** access token */
  | 'crt' /** refresh token */;

export const newSecret = (kind: SecretKind): string => `coord_${kind}_${randomBytes(32).toString('base64url')}`;
export const newClientId = (): string => `cc_${randomBytes(12).toString('base64url')}`;
export const newGrantId = (): string => `g_${randomBytes(6).toString('base64url')}`;
