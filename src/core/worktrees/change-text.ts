/** How a change record reads to people and models (CLI show, MCP show_task, coord top): a few short lines. */
import type { ChangeRecord } from './git-port.js';

export function changeLines(c: ChangeRecord | null | undefined): string[] {
  if (!c) return [];
  const where = `${c.worktree}${c.branch ? ` on ${c.branch}` : ' (detached)'}`;
  if (c.commits.length === 0) return [`change: completed, no commits (${where}, head ${c.head.slice(0, 7)})`];
  const n = c.commits.length;
  const lines = [
    `change: ${n} commit${n === 1 ? '' : 's'} in ${where}, head ${c.head.slice(0, 7)} · ${c.paths.length} path${c.paths.length === 1 ? '' : 's'} +${c.insertions} −${c.deletions}${c.clean ? '' : ' · work tree not clean'}`,
  ];
  for (const commit of c.commits.slice(0, 5)) lines.push(`  ${commit.sha.slice(0, 7)} ${commit.subject}`);
  if (n > 5) lines.push(`  … ${n - 5} more`);
  return lines;
}
