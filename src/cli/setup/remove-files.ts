/**
 * `coord setup --remove` (SPEC §5): every file put back as it was before setup, or with coord's entries
 * taken out where it changed since; a file another client's setup still uses keeps coord's part; the
 * folders setup created go when empty; the record is dropped.
 */
import { type Change, commitAll, readText, removeEmptyTree } from './commit.js';
import { dropManifest, type FileRecord, type Manifest, readManifest } from './manifest.js';
import type { FilePlan } from './plans.js';
import { type FileOutcome, otherSetups } from './write-files.js';

export async function removePlans(
  plans: FilePlan[],
  mpath: string,
): Promise<{ files: FileOutcome[]; notes: string[] }> {
  const manifest = readManifest(mpath);
  const trusted = manifest?.trusted ?? [];
  const files: FileOutcome[] = [];
  const notes: string[] = [];
  const changes: Change[] = [];
  const others = otherSetups(mpath);
  for (const p of plans) {
    const current = readText(p.path);
    // A file another client's setup wrote too (AGENTS.md, .mcp.json): coord's part there is theirs as
    // well, so it stays until the last of them is removed (issue 34 item 15).
    const sharer = others.find((m) => m.files.some((f) => f.path === p.path));
    if (sharer && current !== null) {
      files.push({ path: p.path, what: p.what, status: 'unchanged' });
      notes.push(
        `kept ${p.path}: coord setup ${sharer.client} uses it too (coord setup ${sharer.client} --remove takes it out)`,
      );
      continue;
    }
    const rec = manifest?.files.find((f) => f.path === p.path);
    const next = withoutCoord(p, current, rec, trusted);
    if (next === current) {
      files.push({ path: p.path, what: p.what, status: 'unchanged' });
      continue;
    }
    changes.push({ path: p.path, before: current, next });
    files.push({ path: p.path, what: p.what, status: removedStatus(current, next, rec) });
  }
  commitAll(changes);
  // Folders coord created, deepest first, if nothing else has moved in.
  for (const dir of [...(manifest?.dirs ?? [])].sort((a, b) => b.length - a.length)) removeEmptyTree(dir);
  dropManifest(mpath);
  const note = removedNote(changes.length, manifest, mpath);
  if (note) notes.push(note);
  return { files, notes };
}

/** A file without coord's part: as it was before setup if untouched since, else with coord's entries undone. */
function withoutCoord(
  p: FilePlan,
  current: string | null,
  rec: FileRecord | undefined,
  trusted: string[],
): string | null {
  if (rec && current === rec.after) return rec.before;
  if (rec) return p.undo(current, rec.before, trusted);
  // No record: coord's entries are found by their names and marks; a file is never deleted (it may
  // have been there before coord), at most emptied of coord's part.
  if (current === null) return null;
  return p.undo(current, undefined, trusted) ?? '';
}

function removedStatus(
  current: string | null,
  next: string | null,
  rec: FileRecord | undefined,
): FileOutcome['status'] {
  if (next === null) return 'deleted';
  return rec && current === rec.after ? 'restored' : 'removed';
}

function removedNote(changed: number, manifest: Manifest | null, mpath: string): string | undefined {
  if (changed === 0) return `nothing of coord's was there: no file changed`;
  if (manifest) return undefined;
  return `no record of a coord setup here (${mpath}): took out coord's entries found by their marks in ${changed} file${changed === 1 ? '' : 's'}`;
}
