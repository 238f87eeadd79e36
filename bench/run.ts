/**
 * npm run bench [-- --quick] [-- --only <substring>] [-- --rounds <n>]
 *
 * For each scenario: run its contenders ALTERNATING (coord, floor, peers, coord,
 * floor, …) for several rounds, take medians, compare to the floor and the target,
 * print a table, and write bench/results/latest.json and latest.md — only for a full run of every scenario;
 * a quick or partial run (--quick, --only) writes bench/results/partial.* instead (not committed).
 * See bench/README.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { repoPath } from './lib/child.js';
import { ONLY, QUICK, ROUNDS } from './lib/config.js';
import { machineInfo } from './lib/machine.js';
import { markdown, type Report, resultRow, type ScenarioResult, terminalTable } from './lib/report.js';
import { runEndHooks } from './lib/run-end.js';
import { sig } from './lib/stats.js';
import { measuredExtra, measuredValue, type Runner, type Scenario, SkipError } from './lib/types.js';
import { SCENARIOS } from './scenarios/index.js';

const NOT_PLUGGED = 'coord contender not plugged in yet (the coord piece it measures has not landed)';

async function runScenario(s: Scenario, log: (line: string) => void): Promise<ScenarioResult> {
  const t0 = performance.now();
  const samples: Record<string, number[]> = {};
  const extras: Record<string, Record<string, number>[]> = {};
  const skipped: Record<string, string> = {};
  const peerNames = Object.keys(s.contenders.peers ?? {});
  const contenders: [string, Runner | undefined][] = [
    ['coord', s.contenders.coord],
    ['floor', s.contenders.floor],
    ...Object.entries(s.contenders.peers ?? {}),
  ];
  const finish = () => resultRow(s, samples, extras, skipped, (performance.now() - t0) / 1000, peerNames);

  const why = await s.available?.();
  if (why) {
    for (const [who] of contenders) skipped[who] = why;
    return finish();
  }
  if (!s.contenders.coord) skipped.coord = NOT_PLUGGED;
  try {
    await s.setup?.();
  } catch (err) {
    for (const [who] of contenders) skipped[who] ??= `setup failed: ${(err as Error).message}`;
    return finish();
  }
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const parts: string[] = [];
      for (const [who, runner] of contenders) {
        if (!runner || skipped[who]) continue;
        try {
          const m = await runner(round);
          samples[who] = [...(samples[who] ?? []), measuredValue(m)];
          extras[who] = [...(extras[who] ?? []), measuredExtra(m)];
          parts.push(`${who} ${sig(measuredValue(m), 4)}`);
        } catch (err) {
          const msg = (err as Error).message.split('\n')[0]?.slice(0, 300) ?? String(err);
          skipped[who] = err instanceof SkipError ? msg : `failed: ${msg}`;
          parts.push(`${who} ✗`);
        }
      }
      log(`    round ${round + 1}/${ROUNDS}: ${parts.join(', ') || 'nothing runnable'}`);
    }
  } finally {
    try {
      await s.teardown?.();
    } catch (err) {
      log(`    teardown failed: ${(err as Error).message}`);
    }
  }
  // A contender that failed in a later round keeps the rounds it finished, but is flagged.
  return finish();
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const machine = machineInfo();
  const selected = SCENARIOS.filter(
    ({ file, scenario }) => !ONLY || scenario.name.toLowerCase().includes(ONLY) || file.includes(ONLY),
  );
  if (selected.length === 0) {
    console.error(`no scenario matches --only ${ONLY}`);
    process.exit(2);
  }
  console.log(
    `coord bench — ${QUICK ? 'quick' : 'full'} mode, ${ROUNDS} alternating rounds, ${selected.length} scenario(s), ` +
      `${machine.cpus} × ${machine.cpu_model}, node ${machine.node}, load ${machine.load_avg_1m}`,
  );
  const results: ScenarioResult[] = [];
  for (const [i, { scenario }] of selected.entries()) {
    console.log(`[${i + 1}/${selected.length}] ${scenario.name} …`);
    const r = await runScenario(scenario, (line) => console.log(line));
    results.push(r);
    const ratio = r.ratio_to_floor === null ? '' : `, coord/floor ${r.ratio_to_floor}×`;
    console.log(
      `    → coord ${r.coord ?? '—'}, floor ${r.floor ?? '—'} ${r.unit}${ratio}, met: ${r.met} (${r.seconds} s)` +
        (r.note?.startsWith('skipped') ? ` — ${r.note.split(';')[0]}` : ''),
    );
  }
  await runEndHooks();

  const report: Report = {
    machine,
    mode: QUICK ? 'quick' : 'full',
    rounds: ROUNDS,
    seconds: Math.round((performance.now() - t0) / 100) / 10,
    scenarios: results,
  };
  const dir = repoPath('bench/results');
  mkdirSync(dir, { recursive: true });
  // Only a full run of every scenario replaces the committed results.
  const name = QUICK || ONLY ? 'partial' : 'latest';
  writeFileSync(`${dir}/${name}.json`, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(`${dir}/${name}.md`, markdown(report));
  console.log('');
  console.log(terminalTable(report));
  console.log('');
  console.log(`wrote bench/results/${name}.json and bench/results/${name}.md (${report.seconds} s)`);
}

main().then(
  () => process.exit(0),
  async (err) => {
    console.error(err);
    await runEndHooks();
    process.exit(1);
  },
);
