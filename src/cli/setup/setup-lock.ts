/**
 * One `coord setup --write/--remove` at a time per folder it writes in (issue 34 item 15): two setups at
 * once on a shared file (`.mcp.json` for Claude Code and Copilot, `AGENTS.md` for Codex and OpenCode)
 * would each read it, merge, and write — and the later write would drop the earlier one. The lock is a
 * flock on `.coord-setup.lock` in the project root (project scope) or the home folder (user scope), held
 * from the first read to the last write; a crashed holder's lock ends with its process, and the file is
 * removed on release (a waiter that locked the removed file tries again).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { isSameFile, tryLockFile, unlockFile } from '../../state-dir/flock.js';

export const SETUP_LOCK = '.coord-setup.lock';

/** How long a setup waits for another one writing in the same folder. */
const WAIT_MS = 60_000;

export async function withSetupLock<T>(dir: string, waiting: () => void, fn: () => Promise<T>): Promise<T> {
  const path = join(dir, SETUP_LOCK);
  const deadline = Date.now() + WAIT_MS;
  let told = false;
  for (;;) {
    const held = tryLockFile(path);
    if (held && isSameFile(held.fd, path)) {
      try {
        return await fn();
      } finally {
        rmSync(path, { force: true });
        unlockFile(held.fd);
      }
    }
    if (held) {
      unlockFile(held.fd); // the holder before removed it: lock the new one
      continue;
    }
    if (!told) waiting();
    told = true;
    if (Date.now() > deadline) throw new Error(`another coord setup has held ${path} for a minute: try again`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
