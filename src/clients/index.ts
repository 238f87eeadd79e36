/**
 * The table of client profiles (SPEC §17): adding a client is one file in this folder and one line
 * here. The table's order is the order a hook without `--client` tries each profile's `detect` —
 * a client that also sets another's variables goes before it.
 */
import { claude } from './claude.js';
import { codex } from './codex.js';
import { cursor } from './cursor.js';
import { gemini } from './gemini.js';
import type { ClientProfile } from './profile.js';

export const PROFILES = {
  gemini,
  claude,
  codex,
  cursor,
} as const satisfies Record<string, ClientProfile>;

export type ClientKind = keyof typeof PROFILES;

export const CLIENT_KINDS = Object.keys(PROFILES) as ClientKind[];

export const isClientKind = (s: unknown): s is ClientKind => typeof s === 'string' && Object.hasOwn(PROFILES, s);

export const profileOf = (kind: ClientKind): ClientProfile => PROFILES[kind];

/** The client this environment belongs to, when no --client was given. */
export const detectClient = (env: NodeJS.ProcessEnv): ClientKind | undefined =>
  CLIENT_KINDS.find((k) => PROFILES[k].detect(env));

export type { ClientProfile } from './profile.js';
