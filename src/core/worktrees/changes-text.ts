/** `coord changes` / MCP `changes` as text: one block per work tree, then the overlaps (SPEC §14). */
import type { z } from 'zod';
import type { ChangesOutput } from './change-schemas.js';
import { shortTree } from './holds.js';

type Changes = z.output<typeof ChangesOutput>;

export function changesText(
  c: Pick<Changes, 'target' | 'worktrees'> & { overlaps?: Changes['overlaps'] },
  from: string | null,
): string {
  const lines = [`target ${c.target}`];
  for (const t of c.worktrees) {
    const who = t.agents.length
      ? ` · ${t.agents.join(', ')}${t.tasks.length ? ` (${t.tasks.map((id) => `#${id}`).join(' ')})` : ''}`
      : '';
    lines.push(
      `${shortTree(t.path, from)} [${t.branch ?? 'detached'}] ${t.head?.slice(0, 7) ?? '-'} · ahead ${t.ahead}, behind ${t.behind} · ${t.pending_count} pending${who}`,
    );
    const shown = t.pending.slice(0, 20);
    for (const p of shown) lines.push(`  ${p}`);
    if (t.pending_count > shown.length) lines.push(`  … ${t.pending_count - shown.length} more`);
  }
  if (c.overlaps) {
    if (c.overlaps.length === 0) lines.push('no overlaps');
    for (const o of c.overlaps)
      lines.push(`overlap ${o.path}: ${o.worktrees.map((w) => shortTree(w, from)).join(', ')}`);
  }
  return lines.join('\n');
}
