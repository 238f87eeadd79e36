/** SPEC §18: the headless profiles `--agents` names, each installed — or a clear error saying what to do. */
import { isClientKind, PROFILES, profileOf } from '../clients/index.js';
import type { HeadlessProfile } from '../clients/profile.js';
import { CoordError } from '../core/errors.js';
import { parseAgentsSpec } from '../core/runs/supervision.js';
import { whichBin } from './agent-process.js';

const usage = (message: string) => new CoordError('invalid_request', message);

export function headlessProfiles(clients: string[], path: string | undefined): Record<string, HeadlessProfile> {
  const out: Record<string, HeadlessProfile> = {};
  for (const client of clients) {
    if (!isClientKind(client)) {
      throw usage(`unknown client "${client}" in --agents: coord run can start ${startable(path)}`);
    }
    const headless = profileOf(client).headless;
    if (!headless) {
      throw usage(
        `${profileOf(client).title} has no headless mode coord run can start (clients with one: ${startable(path)})`,
      );
    }
    if (whichBin(headless.bin, path) === null) {
      throw usage(`${profileOf(client).title} (${headless.bin}) is not installed or not on PATH: ${headless.install}`);
    }
    out[client] = headless;
  }
  return out;
}

/** The clients with a headless mode, each not installed here followed by how to install it. */
function startable(path: string | undefined): string {
  return Object.entries(PROFILES)
    .flatMap(([k, p]) => ('headless' in p && p.headless ? [[k, p.headless] as const] : []))
    .map(([k, h]) => (whichBin(h.bin, path) === null ? `${k} (not installed: ${h.install})` : k))
    .join(', ');
}

/** `--agents` / `serve --run` checked before anything starts: the spec, each client known, headless and installed. */
export function checkAgentsSpec(spec: string, path: string | undefined): void {
  headlessProfiles(
    parseAgentsSpec(spec).map((a) => a.client),
    path,
  );
}
