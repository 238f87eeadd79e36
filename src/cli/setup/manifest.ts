/**
 * What setup changed, so `--remove` can put every file back: each file's
 * content before coord first touched it and right after coord last wrote it,
 * and the Codex trust keys it recorded. Kept in `<state>/setup/`.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientKind } from '../../clients/index.js';
import type { Scope } from '../../clients/profile.js';
import { sha256Hex } from '../../core/shared/canonical-json.js';

export interface FileRecord {
  path: string;
  /** null: the file did not exist. */
  before: string | null;
  after: string;
}

export interface Manifest {
  version: 1;
  client: ClientKind;
  scope: Scope;
  files: FileRecord[];
  trusted: string[];
  /** Folders setup created (for files that did not exist): removed again when left empty. */
  dirs?: string[];
}

export function manifestPath(stateDir: string, client: ClientKind, scope: Scope, root: string): string {
  const where = scope === 'project' ? `-${sha256Hex(root).slice(0, 8)}` : '';
  return join(stateDir, 'setup', `${client}-${scope}${where}.json`);
}

export function readManifest(path: string): Manifest | null {
  try {
    const m = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
    return m.version === 1 && Array.isArray(m.files) ? m : null;
  } catch {
    return null;
  }
}

export function writeManifest(path: string, m: Manifest): void {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(m, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

export const dropManifest = (path: string) => rmSync(path, { force: true });
