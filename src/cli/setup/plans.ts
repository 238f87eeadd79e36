/**
 * What `coord setup <client>` writes, per client and scope (SPEC §5, §10):
 * the MCP server, the hooks, and the marked instructions section — all that
 * a client needs to claim, be blocked and be primed, with no hand edits.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { hookPath } from '../../api/paths.js';
import { type ClientKind, profileOf } from '../../clients/index.js';
import type { ClientEvent, ConfigFile, JsonEdit, Scope, SetupSpec } from '../../clients/profile.js';
import { codexBlock, removeCodexToml, upsertCodexToml } from './codex-toml.js';
import { removeSection, sectionBlock, upsertSection } from './instructions.js';
import { applyJson, undoJson } from './json-file.js';

export type { Scope } from '../../clients/profile.js';

/** How to run this coord: absolute node and bin/coord.js, because GUI-launched clients do not see the shell's PATH. */
export interface Launch {
  node: string;
  bin: string;
  /** bin/coord-hook.cjs: the hooks' CommonJS entry (no ES module loader on every edit). */
  hookBin: string;
  /** `--state DIR` when a state directory is pinned. */
  stateArgs: string[];
}

export interface SetupContext {
  client: ClientKind;
  scope: Scope;
  /** The work tree setup runs in (project scope writes there). */
  root: string;
  env: NodeJS.ProcessEnv;
  launch: Launch;
  /** `--tools`: the tool set `coord mcp` offers, when not the client profile's default. */
  tools?: 'lean' | 'core' | 'all';
  /** The daemon's URL and hook key for the clients' `http` hooks (user scope only: see SetupSpec.httpHook). */
  daemon?: { url: string; hookKey: string } | undefined;
}

export interface FilePlan {
  path: string;
  /** What coord keeps in it, for the report. */
  what: string;
  apply(before: string | null): string;
  /**
   * Take coord's part out of `current` (used when the file changed since setup wrote it, or setup
   * has no record of it: `before` undefined). Returns `current` itself when nothing of coord's is there.
   */
  undo(current: string | null, before: string | null | undefined, trusted: string[]): string | null;
}

/** POSIX shell quoting, only where needed. */
export const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

export const mcpArgs = (c: SetupContext): string[] => [
  c.launch.bin,
  'mcp',
  '--client',
  c.client,
  ...(c.tools ? ['--tools', c.tools] : []),
  ...c.launch.stateArgs,
];

/** The mark that finds coord's hook in a client's list: unique per event and client. */
export const hookMark = (event: ClientEvent, client: ClientKind) =>
  event === 'session-start' ? `prime --client ${client}` : `hook ${event} --client ${client}`;

export const hookArgv = (c: SetupContext, event: ClientEvent): string[] => [
  c.launch.node,
  c.launch.hookBin,
  ...hookMark(event, c.client).split(' '),
  ...c.launch.stateArgs,
];

export function hookCommand(c: SetupContext, event: ClientEvent): string {
  return hookArgv(c, event).map(shellQuote).join(' ');
}

/** A plugin module coord ships: the build's (dist/plugins), or in a checkout without one the source (Bun and jiti read TypeScript). */
export function pluginModule(c: SetupContext, name: string): string {
  const root = join(dirname(c.launch.bin), '..');
  const built = join(root, 'dist', 'plugins', `${name}.js`);
  return pathToFileURL(existsSync(built) ? built : join(root, 'src', 'plugins', `${name}.ts`)).href;
}

const home = (env: NodeJS.ProcessEnv) => env.HOME || homedir();

function jsonPlan(path: string, what: string, edits: JsonEdit[]): FilePlan {
  return {
    path,
    what,
    apply: (before) => applyJson(before, edits, path),
    undo: (current, before) => undoJson(current, edits, before, path),
  };
}

function sectionPlan(path: string, what: string, prefix = ''): FilePlan {
  return {
    path,
    what,
    apply: (before) => upsertSection(before, sectionBlock(), prefix),
    undo: (current) => removeSection(current, prefix),
  };
}

/** A whole file coord ships: written as given; taken out only while it is still what coord wrote. */
function ownedFilePlan(path: string, what: string, content: string): FilePlan {
  return {
    path,
    what,
    apply: () => content,
    undo: (current) => (current === content ? null : current),
  };
}

function planOf(f: ConfigFile): FilePlan {
  switch (f.format) {
    case 'json':
      return jsonPlan(f.path, f.what, f.edits);
    case 'section':
      return sectionPlan(f.path, f.what, f.prefix);
    case 'codex-toml':
      return {
        path: f.path,
        what: f.what,
        apply: (before) => upsertCodexToml(before, codexBlock(f.block)),
        undo: (current, _before, trusted) => removeCodexToml(current, trusted),
      };
    case 'file':
      return ownedFilePlan(f.path, f.what, f.content);
  }
}

/** The files the client's profile says setup writes, each with how to apply and undo coord's part. */
export function planFor(c: SetupContext): FilePlan[] {
  const spec: SetupSpec = {
    scope: c.scope,
    root: c.root,
    home: home(c.env),
    env: c.env,
    mcp: { command: c.launch.node, args: mcpArgs(c) },
    hook: (event) => hookCommand(c, event),
    hookArgv: (event) => hookArgv(c, event),
    pluginModule: (name) => pluginModule(c, name),
    mark: (event) => hookMark(event, c.client),
    httpHook:
      c.daemon && c.scope === 'user'
        ? { url: (event) => `${c.daemon?.url ?? ''}${hookPath(c.client, event)}`, key: c.daemon.hookKey }
        : undefined,
  };
  return profileOf(c.client).setup.files(spec).map(planOf);
}
