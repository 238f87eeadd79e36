#!/usr/bin/env node
/**
 * `npm run agents:install`: the real agent CLIs the agent tests drive, at pinned versions, in a cache
 * outside the tree: ${COORD_AGENTS_CACHE:-~/.cache/coord-agents}/<package>@<version>/. A version
 * already there (its binary answers --version) is skipped. Pins live in versions.json.
 *
 * Claude Code and Codex ship their native binaries as per-platform optional dependencies: npm must
 * not omit optional dependencies, and Claude Code's postinstall (which puts the binary in place) must
 * be allowed to run. Newer Claude Code declares Node 22 but its native binary runs under any Node,
 * which is why the version is pinned instead of letting npm pick one that "fits" Node 20.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const HERE = new URL('.', import.meta.url).pathname;
export const VERSIONS = JSON.parse(readFileSync(join(HERE, 'versions.json'), 'utf8'));
export const CACHE = process.env.COORD_AGENTS_CACHE || join(homedir(), '.cache', 'coord-agents');

/** The directory one pinned CLI is installed in. */
export const dirOf = (spec) => join(CACHE, `${spec.package.replace('/', '+')}@${spec.version}`);
/** Its executable. */
export const binOf = (spec) => join(dirOf(spec), 'node_modules', '.bin', spec.bin);

function answers(spec) {
  const bin = binOf(spec);
  if (!existsSync(bin)) return null;
  const r = spawnSync(bin, ['--version'], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, HOME: join(dirOf(spec), 'home') },
  });
  // Pi prints its version on stderr.
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  return r.status === 0 && out.includes(spec.version) ? out : null;
}

function install(name, spec) {
  const ready = answers(spec);
  if (ready) {
    console.log(`${name}: ${spec.package}@${spec.version} present (${ready})`);
    return true;
  }
  const dir = dirOf(spec);
  const tmp = `${dir}.partial-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  // The package's own install script is allowed (Claude Code copies its native binary into place);
  // nothing else runs scripts (Gemini's optional keytar/node-pty are not needed headless).
  writeFileSync(
    join(tmp, 'package.json'),
    `${JSON.stringify({ private: true, allowScripts: { [spec.package]: true } }, null, 2)}\n`,
  );
  console.log(`${name}: installing ${spec.package}@${spec.version} into ${dir}`);
  const r = spawnSync(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--save-exact',
      '--include=optional',
      '--foreground-scripts',
      `${spec.package}@${spec.version}`,
    ],
    { cwd: tmp, stdio: 'inherit', env: { ...process.env, npm_config_engine_strict: 'false' } },
  );
  if (r.status !== 0) {
    console.error(`${name}: npm install failed (exit ${r.status})`);
    rmSync(tmp, { recursive: true, force: true });
    return false;
  }
  if (spec.native && !existsSync(join(tmp, 'node_modules', ...spec.native.split('/')))) {
    console.error(`${name}: the native package ${spec.native} was not installed (optional dependencies omitted?)`);
    rmSync(tmp, { recursive: true, force: true });
    return false;
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  const now = answers(spec);
  if (!now) {
    console.error(`${name}: ${binOf(spec)} --version does not answer ${spec.version}`);
    return false;
  }
  console.log(`${name}: ${now}`);
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const only = process.argv.slice(2);
  let ok = true;
  for (const [name, spec] of Object.entries(VERSIONS)) {
    if (only.length > 0 && !only.includes(name)) continue;
    ok = install(name, spec) && ok;
  }
  process.exit(ok ? 0 : 1);
}
