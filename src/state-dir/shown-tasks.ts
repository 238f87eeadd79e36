/**
 * Which tasks for an agent alone (handoffs, tasks posted `for` it) it has been shown outside its inbox,
 * per board: the stop hook (src/hooks/stop.ts) and the push into a live Claude Code session
 * (src/client/claude-push.ts) both read and add to it, so a task line reaches the model once, by
 * whichever got there first (SPEC §10 stop: never twice for the same items). Tasks have no receipts;
 * this file in `<state>/hooks/` is the record. Node built-ins only: the hooks load it.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../core/shared/sha256.js';

function shownFile(stateDir: string, agent: string, board: string): string {
  const id = sha256Hex(`${board}\n${agent}`).slice(0, 16);
  return join(stateDir, 'hooks', `stop-${id}.json`);
}

export function shownTasks(stateDir: string, agent: string, board: string): Set<string> {
  try {
    const v = JSON.parse(readFileSync(shownFile(stateDir, agent, board), 'utf8')) as { ids?: unknown };
    return new Set(Array.isArray(v.ids) ? v.ids.filter((x): x is string => typeof x === 'string') : []);
  } catch {
    return new Set();
  }
}

/** Adds `ids`, keeping the newest 500: enough to never repeat, bounded forever. */
export function markTasksShown(stateDir: string, agent: string, board: string, ids: string[]): void {
  if (ids.length === 0) return;
  const file = shownFile(stateDir, agent, board);
  const all = [...new Set([...shownTasks(stateDir, agent, board), ...ids])];
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ ids: all.slice(-500) }), { mode: 0o600 });
  renameSync(tmp, file);
}
