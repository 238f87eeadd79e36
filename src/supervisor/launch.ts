/**
 * SPEC §18 "The agent knows its task and its contract": one client process started in its task's work tree,
 * with coord's MCP server and hooks configured for that process only — through the profile's own flags,
 * environment and files in folders of this launch's own, never a file of the user's or of the work tree.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ClientEvent, HeadlessProfile, StreamSignal } from '../clients/profile.js';
import { AgentProcess, whichBin } from './agent-process.js';
import { coordEnv, type Live, type SupervisorOptions } from './options.js';

export interface LaunchRequest {
  l: Live;
  profile: HeadlessProfile;
  prompt: string;
  resume: string | undefined;
  onSignal(s: StreamSignal): void;
}

/** Starts the client of `l` headless; the process's configuration folder goes when it has ended. */
export function launchAgent(o: SupervisorOptions, r: LaunchRequest): AgentProcess {
  const { l, profile } = r;
  const c = o.coord;
  const bin = whichBin(profile.bin, o.env.PATH);
  if (bin === null) throw new Error(`${profile.bin} is not installed (on PATH): ${profile.install}`);
  const hookArgv = (event: ClientEvent) => [
    c.node,
    c.hookBin,
    ...markOf(event, l.run.client).split(' '),
    ...c.stateArgs,
  ];
  // A folder of this launch's own for the client's configuration files (removed once the process has ended).
  const configDir = mkdtempSync(join(tmpdir(), 'coord-run-'));
  const scratch = join(o.scratchDir, l.run.agent.replace(/[^A-Za-z0-9._-]/g, '_'));
  const env = coordEnv(l, o.board);
  const launch = profile.launch({
    prompt: r.prompt,
    coordEnv: env,
    scratch,
    cwd: l.run.worktree,
    // The relay through the CommonJS entry (bin/coord-hook.cjs): its one-file bundle, no ES module loader.
    mcp: { command: c.node, args: [c.hookBin, 'mcp', '--client', l.run.client, ...c.stateArgs] },
    hook: (event) => hookArgv(event).map(shellQuote).join(' '),
    mark: (event) => markOf(event, l.run.client),
    permissionMode: o.permissionMode?.[l.run.client] ?? o.permissionMode?.['*'],
    maxTurns: o.maxTurns,
    resume: r.resume,
    gitCommonDir: o.commonDir,
    configDir,
    hookArgv,
    httpHook: c.hookSite && {
      url: (event: ClientEvent) => c.hookSite?.url(l.run.client, event) ?? '',
      key: c.hookSite.key,
    },
    pluginModule: (name) => pluginModuleOf(c.bin, name),
  });
  for (const f of launch.files ?? []) {
    // A profile writes its own folders only: never a file of the user's or the work tree's.
    const at = resolve(f.path);
    if (!at.startsWith(`${configDir}/`) && !at.startsWith(`${scratch}/`))
      throw new Error(`${l.run.client}: ${f.path} is outside ${configDir} and ${scratch}`);
    mkdirSync(dirname(f.path), { recursive: true, mode: 0o700 });
    writeFileSync(f.path, f.content, { mode: 0o600 });
  }
  const proc = new AgentProcess(bin, launch.args, {
    cwd: l.run.worktree,
    env: { ...o.env, ...env, ...launch.env },
    onLine: (stream, line) => {
      const signals = stream === 'stdout' ? profile.read(line) : (profile.readErr?.(line) ?? []);
      for (const s of signals) r.onSignal(s);
    },
  });
  void proc.ended.then(() => rmSync(configDir, { recursive: true, force: true }));
  return proc;
}

/** The mark of coord's hook for an event (the same words `coord setup` writes: cli/setup/plans.ts hookMark). */
const markOf = (event: ClientEvent, client: string) =>
  event === 'session-start' ? `prime --client ${client}` : `hook ${event} --client ${client}`;

const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** A plugin module coord ships, beside the coord it runs: the build's, or in a checkout without one the source. */
const pluginModuleOf = (bin: string, name: string): string => {
  const root = join(dirname(bin), '..');
  const built = join(root, 'dist', 'plugins', `${name}.js`);
  return pathToFileURL(existsSync(built) ? built : join(root, 'src', 'plugins', `${name}.ts`)).href;
};
