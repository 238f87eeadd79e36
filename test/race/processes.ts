/** Spawns claimer processes, releases them at one instant, and collects what each saw. */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const FIXTURE = new URL('./fixtures/claimer.mjs', import.meta.url).pathname;

export interface Attempt {
  task: string;
  status: number;
  agent: string;
  code?: string;
  holder?: string;
  claim_id?: string;
}

export async function raceClaimers(
  url: string,
  token: string,
  agents: string[],
  taskIds: string[],
): Promise<Attempt[]> {
  const children: { child: ChildProcess; lines: string[]; done: Promise<void>; ready: Promise<void> }[] = agents.map(
    (agent) => {
      const child = spawn(process.execPath, [FIXTURE, url, token, agent, ...taskIds], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      const lines: string[] = [];
      let markReady: () => void = () => {};
      const ready = new Promise<void>((r) => {
        markReady = r;
      });
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line === 'ready') markReady();
        else lines.push(line);
      });
      const done = new Promise<void>((resolve, reject) =>
        child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`claimer ${agent} exited ${code}`)))),
      );
      return { child, lines, done, ready };
    },
  );
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.child.stdin!.write('go\n');
  await Promise.all(children.map((c) => c.done));
  return children.flatMap((c) => c.lines.map((l) => JSON.parse(l) as Attempt));
}
