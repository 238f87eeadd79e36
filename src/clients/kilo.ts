/** Kilo (SPEC §17), OpenCode's fork: `kilo.json`, coord's plugin in `~/.config/kilo/plugins/`, `AGENTS.md`. */

import { openCodeFamily } from './opencode.js';
import { openCodeHeadless } from './opencode-headless.js';
import type { ClientProfile } from './profile.js';

export const kilo: ClientProfile = openCodeFamily({
  kind: 'kilo',
  title: 'Kilo',
  dir: 'kilo',
  config: 'kilo.json',
  detect: (env) => Boolean(env.KILO_RUN_ID || env.KILO),
  // `kilo run` is OpenCode's, under its own names (KILO_CONFIG).
  headless: openCodeHeadless({
    bin: 'kilo',
    install: 'npm install -g @kilocode/cli',
    configEnv: 'KILO_CONFIG',
    title: 'Kilo',
  }),
});
