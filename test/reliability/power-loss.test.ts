/**
 * Power loss (SPEC §8: durable by default). The daemon's state directory lives on an ext4 image loop-mounted
 * from /dev/shm. Client processes post and claim as fast as it answers and record every 2xx in a ledger
 * outside the image; right after a burst of acknowledged writes the file system is shut down with
 * EXT4_IOC_SHUTDOWN and flag 2 (NOLOGFLUSH: nothing that was not flushed survives — what a power cut
 * leaves). Then the image is remounted, the daemon restarted, and every acknowledged write looked up.
 *
 * Three ways, so the test proves something: the default durability loses nothing; `--durability normal`
 * must lose acknowledged writes (else the cut did not cut); a control with flag 0 (flush, then shut down)
 * loses nothing even at normal (so the losses come from what was not flushed, not from the test).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ROOT, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { cannotShutDown, type DyingDisk, dyingDisk } from './fault-fs.js';

const SHM = '/dev/shm';
const CLIENTS = 4;
const CLIENT = join(ROOT, 'test/reliability/fixtures/power-loss-client.mjs');
const skip = cannotShutDown() ?? (existsSync(SHM) ? null : `${SHM} is missing`);
if (skip) console.log(`# SKIPPED power loss: ${skip}`);

interface Round {
  acked: number;
  lost: number;
  lostLines: string[];
}

const ackedLines = (ledgers: string[]): string[] =>
  ledgers.flatMap((f) => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean) : []));

/** One round: write, cut at `cutAfter` acknowledged writes, remount, restart, look every acknowledged write up. */
async function round(durability: 'full' | 'normal', flag: 0 | 2, cutAfter: number): Promise<Round> {
  const disk: DyingDisk = dyingDisk(64 * 1024 * 1024, SHM);
  const outside = join(disk.dir, '..', 'ledgers'); // next to the image, not in it
  mkdirSync(outside);
  const stateDir = join(disk.dir, 'state');
  mkdirSync(stateDir, { mode: 0o700 });
  let daemon: SpawnedDaemon | undefined;
  const clients: ChildProcess[] = [];
  try {
    daemon = await spawnDaemon({ stateDir, args: durability === 'normal' ? ['--durability', 'normal'] : [] });
    const ledgers = Array.from({ length: CLIENTS }, (_, i) => join(outside, `client-${i}.log`));
    const exits = ledgers.map((ledger, i) => {
      const child = spawn(process.execPath, [CLIENT, daemon!.url, daemon!.token, `agent-${i}`, ledger], {
        stdio: 'ignore',
      });
      clients.push(child);
      return new Promise<void>((resolve) => child.once('exit', () => resolve()));
    });
    // The cut comes right after a burst: the clients are writing flat out when it lands.
    while (ackedLines(ledgers).length < cutAfter) await new Promise((r) => setTimeout(r, 2));
    disk.shutDown(flag);
    await daemon.kill9();
    for (const c of clients) c.kill('SIGKILL');
    await Promise.all(exits);
    const acked = ackedLines(ledgers);

    disk.remount();
    daemon = await spawnDaemon({ stateDir });
    const lostLines: string[] = [];
    const agentOf = new Map<string, string>();
    for (const [i, f] of ledgers.entries())
      for (const line of ackedLines([f])) agentOf.set(line.split(' ')[1]!, `agent-${i}`);
    const queue = [...acked];
    const check = async (): Promise<void> => {
      for (let line = queue.pop(); line !== undefined; line = queue.pop()) {
        const [what, id] = line.split(' ') as [string, string];
        const res = await daemon!.fetch(`/v1/tasks/${id}?agent=${agentOf.get(id)}`);
        const task = res.status === 200 ? ((await res.json()) as { task: { state: string } }).task : null;
        if (!task || (what === 'claim' && task.state !== 'claimed')) lostLines.push(line);
      }
    };
    await Promise.all(Array.from({ length: 8 }, check));
    return { acked: acked.length, lost: lostLines.length, lostLines };
  } finally {
    for (const c of clients) c.kill('SIGKILL');
    await daemon?.kill9();
    disk.unmount();
  }
}

const cutPoint = (): number => 150 + Math.floor(Math.random() * 450);

function summary(name: string, rounds: Round[]): string {
  const acked = rounds.reduce((s, r) => s + r.acked, 0);
  const lost = rounds.reduce((s, r) => s + r.lost, 0);
  return `${name}: ${rounds.length} rounds, ${acked} acknowledged writes checked, lost ${lost} (per round: ${rounds
    .map((r) => `${r.lost}/${r.acked}`)
    .join(', ')})`;
}

describe('power loss', { skip: skip ?? undefined }, () => {
  test('at the default durability, a power cut right after a burst of acknowledged writes loses none of them', async () => {
    const rounds: Round[] = [];
    for (let i = 0; i < 4; i++) rounds.push(await round('full', 2, cutPoint()));
    console.log(`# ${summary('durable (full), flag 2', rounds)}`);
    for (const r of rounds) assert.deepEqual(r.lostLines, [], 'an acknowledged write is gone after the power cut');
    assert.ok(rounds.every((r) => r.acked > 0));
  });

  test('with --durability normal the same cut loses acknowledged writes (so the cut is a real one)', async () => {
    const rounds: Round[] = [];
    for (let i = 0; i < 3; i++) rounds.push(await round('normal', 2, cutPoint()));
    console.log(`# ${summary('normal, flag 2', rounds)}`);
    assert.ok(
      rounds.some((r) => r.lost > 0),
      'NORMAL lost nothing: the cut did not drop unflushed writes, so the durable rounds prove nothing',
    );
  });

  test('a control shutdown that flushes first (flag 0) loses nothing even with --durability normal', async () => {
    const rounds = [await round('normal', 0, cutPoint()), await round('normal', 0, cutPoint())];
    console.log(`# ${summary('normal, flag 0 (control)', rounds)}`);
    for (const r of rounds) assert.deepEqual(r.lostLines, []);
  });
});
