/** Client OS processes for the crash-durability checker: spawn them, read their logs, know when to strike. */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { childEnv } from '../support/daemon.js';
import type { Step } from './crash-ledger.js';

const FIXTURE = new URL('./fixtures/durable-client.mjs', import.meta.url).pathname;

export interface ClientRun {
  /** Points the clients (already started, waiting) at the daemon. */
  go(url: string, token: string): void;
  /** Resolves once every client warmed its connection and is about to write. */
  ready: Promise<void>;
  /** How many acknowledged answers the clients have logged so far. */
  acks(): number;
  /** Resolves when every client exited (they exit when the daemon vanishes); rejects on a client failure. */
  done: Promise<Step[]>;
  /** True once no client is writing any more (op cap reached, or it exited): nothing left to interrupt. */
  idle(): boolean;
  kill(): void;
}

interface Intent {
  e: 'intent';
  n: number;
  op: Step['op'];
  method: string;
  path: string;
  json: unknown;
}

export function startClients(clients: { agent: string; seed: number }[]): ClientRun {
  let acks = 0;
  let idle = 0;
  const children: ChildProcess[] = [];
  const runs = clients.map(({ agent, seed }) => {
    const child = spawn(process.execPath, [FIXTURE, agent, String(seed)], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: childEnv(),
    });
    children.push(child);
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    const steps: Step[] = [];
    let open: Intent | undefined;
    let markReady: () => void = () => {};
    const ready = new Promise<void>((r) => {
      markReady = r;
    });
    let stopped = false;
    const stop = () => {
      if (!stopped) idle += 1;
      stopped = true;
    };
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = JSON.parse(line);
      if (m.e === 'ready') markReady();
      else if (m.e === 'done') stop();
      else if (m.e === 'intent') open = m;
      else {
        if (!open || open.n !== m.n) throw new Error(`${agent}: outcome ${line} without its intent`);
        const { e: _e, ...intent } = open;
        steps.push({ agent, ...intent, outcome: m.e, status: m.status, body: m.body });
        if (m.e === 'ack') acks += 1;
        open = undefined;
      }
    });
    const done = new Promise<Step[]>((resolve, reject) => {
      child.once('exit', (code, signal) => {
        stop();
        if (code !== 0) reject(new Error(`client ${agent} exited ${code ?? signal}: ${err}`));
        // A request whose outcome was never logged: the client died with it (not expected, but never an ack).
        else resolve(open ? [...steps, { agent, ...open, outcome: 'lost' }] : steps);
      });
    });
    return { ready, done };
  });
  return {
    go(url, token) {
      for (const c of children) c.stdin!.end(`${url} ${token}\n`);
    },
    ready: Promise.all(runs.map((r) => r.ready)).then(() => {}),
    acks: () => acks,
    done: Promise.all(runs.map((r) => r.done)).then((all) => all.flat()),
    idle: () => idle === clients.length,
    kill() {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    },
  };
}
