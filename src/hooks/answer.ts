/**
 * A verdict in each client's own words (SPEC §10): the client's profile
 * (src/clients/) says how it blocks, adds context, keeps an agent going and
 * tells the model what a shell command changed that it must not have.
 * Allowing is answering nothing (Codex rejects a bare `allow`), with a
 * warning on stderr when there is one.
 */
import { type ClientKind, profileOf } from '../clients/index.js';
import type { Spoken } from '../clients/profile.js';
import type { Verdict } from './guard-mode.js';

export type { Spoken } from '../clients/profile.js';

export type HookEvent =
  | 'pre-edit'
  | 'session-start'
  | 'stop'
  | 'pre-commit'
  | 'pre-shell'
  | 'post-shell'
  | 'notify'
  | 'resume';

export function speak(client: ClientKind, event: HookEvent, v: Verdict): Spoken {
  const hooks = profileOf(client).hooks;
  const on = event === 'pre-commit' ? 'pre-edit' : event;
  switch (v.kind) {
    case 'allow': {
      if (v.note && hooks.allowNoting) {
        const said = hooks.allowNoting(v.note, on);
        return v.warning ? { ...said, stderr: `${said.stderr}${v.warning}\n` } : said;
      }
      const lines = [v.warning, v.note].filter(Boolean);
      return { code: 0, stdout: '', stderr: lines.map((l) => `${l}\n`).join('') };
    }
    case 'deny':
      return hooks.deny(v.reason, on);
    case 'context':
      return hooks.context(v.text, on);
    case 'continue':
      return event === 'post-shell' ? hooks.afterShell(v.reason, on) : hooks.keepGoing(v.reason, on);
  }
}
