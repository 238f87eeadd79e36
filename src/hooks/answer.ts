/**
 * A verdict in each client's own words (SPEC §10): the client's profile
 * (src/clients/) says how it blocks, adds context and keeps an agent going.
 * Allowing is answering nothing (Codex rejects a bare `allow`), with a
 * warning on stderr when there is one.
 */
import { type ClientKind, profileOf } from '../clients/index.js';
import type { Spoken } from '../clients/profile.js';
import type { Verdict } from './guard-mode.js';

export type { Spoken } from '../clients/profile.js';

export type HookEvent = 'pre-edit' | 'session-start' | 'stop' | 'pre-commit';

export function speak(client: ClientKind, event: HookEvent, v: Verdict): Spoken {
  const hooks = profileOf(client).hooks;
  const on = event === 'pre-commit' ? 'pre-edit' : event;
  switch (v.kind) {
    case 'allow':
      return { code: 0, stdout: '', stderr: v.warning ? `${v.warning}\n` : '' };
    case 'deny':
      return hooks.deny(v.reason, on);
    case 'context':
      return hooks.context(v.text, on);
    case 'continue':
      return hooks.keepGoing(v.reason, on);
  }
}
