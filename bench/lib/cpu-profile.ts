/**
 * Reads a V8 .cpuprofile (written by `node --cpu-prof`) and lists the frames with the
 * most self time (or, with --inclusive, the most time including their callees) — the
 * first thing to look at when coord misses a target.
 *
 *   node --import tsx bench/lib/cpu-profile.ts <file.cpuprofile> [top=25] [--inclusive]
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Frame {
  frame: string;
  self_ms: number;
  share: number;
}

const frameKey = ({ functionName, url, lineNumber }: ProfileNode['callFrame']): string =>
  `${functionName || '(anonymous)'} ${url ? `${basename(url)}:${lineNumber + 1}` : ''}`.trim();

/**
 * The frames with the most self time, or with `inclusive`, the most time spent in them and
 * in everything they called (a frame counts once per sample, even when it recurses).
 */
export function topFrames(file: string, top = 25, inclusive = false): Frame[] {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const time = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    total += dt;
    const keys = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = inclusive ? parent.get(at) : undefined) {
      const n = byId.get(at);
      if (n) keys.add(frameKey(n.callFrame));
    }
    for (const key of keys) time.set(key, (time.get(key) ?? 0) + dt);
  });
  return [...time.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, us]) => ({ frame, self_ms: Math.round(us / 100) / 10, share: Math.round((us / total) * 1000) / 10 }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const inclusive = args.includes('--inclusive');
  const [file, top] = args.filter((a) => a !== '--inclusive');
  if (!file) {
    console.error('usage: node --import tsx bench/lib/cpu-profile.ts <file.cpuprofile> [top] [--inclusive]');
    process.exit(2);
  }
  for (const f of topFrames(file, Number(top ?? 25), inclusive))
    console.log(`${String(f.share).padStart(5)} %  ${f.self_ms} ms  ${f.frame}`);
}
