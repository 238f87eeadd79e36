/**
 * `coord setup --write` (SPEC §5): every planned file read, merged with coord's part and written — all of
 * them and the record of what each held before (manifest.ts), or none. The client's own step after the
 * write (Codex's hook trust) is the command's (cli/commands/setup.ts).
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Change, commitAll, folderToCreate, readText } from './commit.js';
import type { FileRecord, Manifest } from './manifest.js';
import { readManifest } from './manifest.js';
import type { FilePlan, SetupContext } from './plans.js';

export interface FileOutcome {
  path: string;
  what: string;
  /** printed: not asked to write · written · unchanged · restored · removed (deleted: coord had created it). */
  status: 'printed' | 'written' | 'unchanged' | 'restored' | 'removed' | 'deleted';
  content?: string;
}

/**
 * Writes every plan's file and the record of them, or none of them; answers the record (still to be saved
 * with writeManifest once the client's own step has run) and each file's outcome.
 */
export async function writePlans(
  ctx: SetupContext,
  plans: FilePlan[],
  mpath: string,
  gate?: string,
): Promise<{ manifest: Manifest; files: FileOutcome[] }> {
  const { client, scope } = ctx;
  const manifest: Manifest = readManifest(mpath) ?? { version: 1, client, scope, files: [], trusted: [] };
  const files: FileOutcome[] = [];
  // Compute every file first: one that cannot be read as config stops setup before anything is written.
  const next = plans.map((p) => {
    const before = readText(p.path);
    return { p, before, after: p.apply(before) };
  });
  if (gate) await pauseAt(gate);
  const changes: Change[] = [];
  const others = otherSetups(mpath);
  for (const { p, before, after } of next) {
    const rec = record(manifest, p.path, beforeCoord(p, before, others, manifest.trusted));
    if (after !== before) {
      const made = folderToCreate(p.path);
      if (made) manifest.dirs = [...new Set([...(manifest.dirs ?? []), made])];
      changes.push({ path: p.path, before, next: after });
    }
    rec.after = after;
    files.push({ path: p.path, what: p.what, status: after === before ? 'unchanged' : 'written' });
  }
  // Every file and the record of them, or none of them.
  const recordText = `${JSON.stringify(manifest, null, 2)}\n`;
  mkdirSync(dirname(mpath), { recursive: true, mode: 0o700 });
  changes.push({ path: mpath, before: readText(mpath), next: recordText });
  commitAll(changes);
  return { manifest, files };
}

/** Test seam: says the gate is reached, then waits until the test opens it. */
async function pauseAt(gate: string): Promise<void> {
  writeFileSync(`${gate}.reached`, '');
  while (!existsSync(gate)) await new Promise((r) => setTimeout(r, 20));
}

/**
 * What a file held before any coord setup wrote it, recorded as this setup's `before`: where another
 * client's setup wrote the same file (`.mcp.json`, `AGENTS.md`), the file as it is now without coord's
 * shared entry — never that other setup's entry, which `--remove` would otherwise put back after both
 * setups were removed (issue 34 item 15); the user's own changes since are kept.
 */
function beforeCoord(p: FilePlan, current: string | null, others: Manifest[], trusted: string[]): string | null {
  const sharer = others.flatMap((m) => m.files).find((f) => f.path === p.path);
  if (!sharer || current === null) return current;
  return p.undo(current, sharer.before, trusted);
}

/** The records of the other clients' setups in this state directory. */
export function otherSetups(mpath: string): Manifest[] {
  const dir = dirname(mpath);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.json') && join(dir, n) !== mpath)
    .map((n) => readManifest(join(dir, n)))
    .filter((m): m is Manifest => m !== null);
}

/** The record of a file, made on first touch: its content before coord ever wrote it is never replaced. */
export function record(m: Manifest, path: string, before: string | null): FileRecord {
  let rec = m.files.find((f) => f.path === path);
  if (!rec) {
    rec = { path, before, after: before ?? '' };
    m.files.push(rec);
  }
  return rec;
}
