/**
 * Reads a V8 .cpuprofile (written by `node --cpu-prof`) and lists the frames with the
 * most self time — the first thing to look at when coord misses a target.
 *
 *   node --import tsx bench/lib/cpu-profile.ts <file.cpuprofile> [top=25]
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
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

export function topFrames(file: string, top = 25): Frame[] {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const n = byId.get(id);
    const dt = p.timeDeltas[i] ?? 0;
    total += dt;
    if (!n) return;
    const { functionName, url, lineNumber } = n.callFrame;
    const key = `${functionName || '(anonymous)'} ${url ? `${basename(url)}:${lineNumber + 1}` : ''}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, us]) => ({ frame, self_ms: Math.round(us / 100) / 10, share: Math.round((us / total) * 1000) / 10 }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node --import tsx bench/lib/cpu-profile.ts <file.cpuprofile> [top]');
    process.exit(2);
  }
  for (const f of topFrames(file, Number(top ?? 25)))
    console.log(`${String(f.share).padStart(5)} %  ${f.self_ms} ms  ${f.frame}`);
}
