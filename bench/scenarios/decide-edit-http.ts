/**
 * SPEC §10's one decision per edit, over HTTP against the real daemon: POST /v1/locks/decide by 500
 * agents, each deciding an edit of the file it already holds (the repeated edit: a read-only look, no
 * write transaction), compared with the same daemon's empty inbox poll for the same agents.
 * coord: decide_edit p50 (each agent's first edit, which takes the auto-lock, happens in the warm-up).
 * floor: GET /v1/inbox?agent=… on the same daemon — the operation a hook's decision is held against.
 * extra.take_p50_ms: a first edit (the auto-lock taken: one durable write, group-committed).
 * target: decide p50 ≤ 1.5× the inbox poll's (issue 25).
 */
import { startCoordDaemon } from '../coord/daemon.js';
import { pick } from '../lib/config.js';
import { measureLatency } from '../lib/latency-client.js';
import { defineScenario } from '../lib/types.js';

const AGENTS = 500;
const READS = pick(1_000, 2_000);
const TAKES = pick(100, 300);
const agents = Array.from({ length: AGENTS }, (_, i) => `agent-${i}`);

export default defineScenario({
  name: 'decide an edit over HTTP (decide_edit) vs an empty inbox poll',
  metric: 'p50 latency',
  unit: 'ms',
  better: 'lower',
  target: { kind: 'ratio_to_floor_max', value: 1.5 },
  note: `${READS} decisions per round on one keep-alive connection, ${AGENTS} agents each re-editing the file it holds; the floor is the same daemon's empty inbox poll for the same agents; extra.take_p50_ms is a first edit (auto-lock taken, a durable write)`,
  contenders: {
    coord: async () => {
      const d = await startCoordDaemon();
      try {
        // Every agent's first edit takes its auto-lock (not timed: warm-up covers all 500).
        const body = (a: string) => JSON.stringify({ agent: a, board: 'bench', paths: [`src/${a}.ts`] });
        const bodies = agents.map(body);
        const held = await measureLatency({
          url: d.url,
          paths: ['/v1/locks/decide'],
          method: 'POST',
          requests: READS,
          warmup: AGENTS,
          ok: [200],
          headers: d.headers,
          bodies,
        });
        const take = await measureLatency({
          url: d.url,
          paths: ['/v1/locks/decide'],
          method: 'POST',
          body: JSON.stringify({ agent: 'taker', board: 'bench', paths: ['new/f{i}.ts'] }),
          requests: TAKES,
          warmup: 10,
          ok: [200],
          headers: d.headers,
        });
        if (held.errors + take.errors > 0) throw new Error(`${held.errors + take.errors} failed decisions`);
        return { value: held.p50_ms, extra: { p99_ms: held.p99_ms, take_p50_ms: take.p50_ms } };
      } finally {
        await d.stop();
      }
    },
    floor: async () => {
      const d = await startCoordDaemon();
      try {
        const r = await measureLatency({
          url: d.url,
          paths: agents.map((a) => `/v1/inbox?agent=${a}&board=bench`),
          requests: READS,
          warmup: 100,
          ok: [200],
          headers: d.headers,
        });
        if (r.errors > 0) throw new Error(`${r.errors} failed polls`);
        return { value: r.p50_ms, extra: { p99_ms: r.p99_ms } };
      } finally {
        await d.stop();
      }
    },
  },
});
