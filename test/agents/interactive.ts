/**
 * A real client run interactively, in a tmux server of its own, for what only a terminal session shows (a
 * permission prompt: `-p` runs refuse such a tool at once, so they never raise the notification), and what
 * `coord attention` says of its agent. One daemon, one repository, the client set up by `coord setup --write`.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { after, describe } from 'node:test';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { type Agent, modelEnv, setUpAgent } from './clients.js';
import type { FakeModel } from './fake-model.js';
import { type ClientName, clientBin, coord, describeRun, makeRepo } from './support.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;

/** A suite around one interactive session of `client`, ended after it; skipped where tmux is not installed. */
export function describeInteractive(title: string, client: ClientName, body: (session: Interactive) => void): void {
  describe(title, { skip: hasTmux ? false : 'tmux is not installed' }, () => {
    const session = new Interactive(client);
    after(() => session.close());
    body(session);
  });
}

export interface AttentionItem {
  kind: string;
  what: string;
  why: string;
  agent?: string;
  command: string;
}

export class Interactive {
  private readonly socket: string;
  private daemon: SpawnedDaemon | undefined;
  private agent: Agent | undefined;
  private fake: FakeModel | undefined;
  repo = '';

  constructor(private readonly client: ClientName) {
    this.socket = `coord-attn-${client}-${process.pid}`;
  }

  /** A daemon, a repository, and the client set up for coord in it (asserted). */
  async setUp(repoPrefix: string): Promise<Agent> {
    this.daemon = await spawnDaemon();
    this.repo = makeRepo(repoPrefix);
    const agent = await setUpAgent(this.client, this.repo, this.daemon.stateDir);
    assert.equal(agent.setup.code, 0, describeRun(agent.setup));
    this.agent = agent;
    return agent;
  }

  /** Starts the client in the repository with only its own environment and `fake`'s, in a 120×40 terminal. */
  start(fake: FakeModel, args: string): void {
    this.fake = fake;
    const env = { ...this.agent?.env, ...modelEnv(this.client, fake), TERM: 'xterm-256color' };
    const vars = Object.entries(env).map(([k, v]) => `${k}='${v}'`);
    const line = `cd '${this.repo}' && exec env -i ${vars.join(' ')} '${clientBin(this.client)}' ${args}`;
    this.tmux('new-session', '-d', '-s', this.client, '-x', '120', '-y', '40', line);
  }

  tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', this.client, ...keys);
  }

  screen(): string {
    try {
      return this.tmux('capture-pane', '-p', '-t', this.client);
    } catch {
      return '(the pane is gone)';
    }
  }

  async attention(): Promise<AttentionItem[]> {
    const out = await coord(['attention', '--json'], { cwd: this.repo, env: this.agent?.env ?? {} });
    assert.equal(out.code, 0, describeRun(out));
    return (JSON.parse(out.stdout) as { items: AttentionItem[] }).items;
  }

  /** The agent_waiting item, once `coord attention` lists one; the terminal is shown if it never does. */
  async waiting(): Promise<AttentionItem | undefined> {
    let last = '';
    return waitFor(
      async () => {
        last = this.screen();
        return (await this.attention()).find((i) => i.kind === 'agent_waiting');
      },
      'an agent_waiting item',
      120_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n--- the terminal\n${last}`);
    });
  }

  /** Ends the terminal, the fake model, then the daemon; waits for the client to be gone first: it writes its HOME as it exits. */
  async close(): Promise<void> {
    let pane: string | undefined;
    try {
      pane = this.tmux('list-panes', '-a', '-F', '#{pane_pid}').trim();
      this.tmux('kill-server');
    } catch {
      // never started, or gone
    }
    for (let i = 0; pane && i < 50 && isAlive(Number(pane)); i++) await new Promise((r) => setTimeout(r, 100));
    await this.fake?.close();
    await this.daemon?.stop();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
