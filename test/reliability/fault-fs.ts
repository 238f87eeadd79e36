/**
 * Real storage faults for tests: a size-limited tmpfs that can be filled to the last byte (disk full) and
 * remounted read-only, and a read-only bind mount over one file. Needs mount(2): root, as on this machine and CI.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/ctx.js';

const run = (cmd: string, args: string[]): void => {
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
};

/** Why mounting cannot work here, or null when it can (tried for real: mount a 64 KiB tmpfs and unmount it). */
export function cannotMount(): string | null {
  const dir = tempDir('coord-mount-probe-');
  try {
    run('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]);
    run('umount', [dir]);
    return null;
  } catch (e) {
    return `mount -t tmpfs failed (${(e as { stderr?: Buffer }).stderr?.toString().trim() || String(e)}); needs root`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface SmallDisk {
  /** The mount point: everything under it shares `bytes` of space. */
  dir: string;
  /** Writes a filler file until the disk answers ENOSPC; returns its path. */
  fill(): string;
  /** Removes the filler: the space is free again. */
  free(): void;
  readOnly(): void;
  readWrite(): void;
  unmount(): void;
}

export function smallDisk(bytes: number): SmallDisk {
  const dir = tempDir('coord-small-disk-');
  run('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0755`, 'tmpfs', dir]);
  const filler = join(dir, 'filler');
  let mounted = true;
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      try {
        // Big blocks first, then single bytes, so not even a small page fits afterwards.
        for (const block of [1 << 16, 4096, 1]) {
          const buf = Buffer.alloc(block, 0x5a);
          try {
            for (;;) writeSync(fd, buf);
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
          }
        }
      } finally {
        closeSync(fd);
      }
      return filler;
    },
    free() {
      rmSync(filler, { force: true });
    },
    readOnly() {
      run('mount', ['-o', 'remount,ro', dir]);
    },
    readWrite() {
      run('mount', ['-o', 'remount,rw', dir]);
    },
    unmount() {
      if (!mounted) return;
      mounted = false;
      run('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Makes one file read-only by bind-mounting it over itself read-only (its directory stays writable). */
export function bindReadOnly(file: string): () => void {
  run('mount', ['--bind', file, file]);
  run('mount', ['-o', 'remount,bind,ro', file]);
  return () => run('umount', [file]);
}

export const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** The SQLite sidecar files next to `db` that exist now. */
export const sidecars = (db: string): string[] => ['-wal', '-shm', '-journal'].filter((s) => existsSync(db + s));

export function stateDirIn(root: string, name = 'state'): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** Why an ext4 file system cannot be loop-mounted and shut down here, or null when it can. */
export function cannotShutDown(): string | null {
  for (const tool of ['mkfs.ext4', 'python3']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `${tool} is not installed`;
    }
  }
  return cannotMount();
}

export interface DyingDisk {
  dir: string;
  /**
   * The disk "dies": ext4's shutdown ioctl (what `xfs_io -x -c shutdown` does). Flag 0 (the default) flushes
   * what was written first; flag 2 (EXT4_GOING_FLAGS_NOLOGFLUSH) flushes nothing — what a power cut leaves.
   */
  shutDown(flag?: 0 | 1 | 2): void;
  /** Unmount and mount the image again: the disk is back, with what it had when it went down. */
  remount(): void;
  unmount(): void;
}

// EXT4_IOC_SHUTDOWN = _IOR('X', 125, __u32); flag 0 = EXT4_GOING_FLAGS_DEFAULT (sync, then refuse all I/O),
// 1 = LOGFLUSH (the journal only), 2 = NOLOGFLUSH (nothing: the page cache and the open journal are dropped).
const SHUTDOWN = (dir: string, flag: number) =>
  `import fcntl, os, struct\nfd = os.open(${JSON.stringify(dir)}, os.O_RDONLY)\nfcntl.ioctl(fd, 0x8004587D, struct.pack('I', ${flag}))`;

/**
 * An ext4 file system in a `bytes`-sized image, loop-mounted; every later I/O on it fails with EIO once shut
 * down. `parent` puts the image somewhere else than the temp dir (the power-loss test uses /dev/shm).
 */
export function dyingDisk(bytes: number, parent?: string): DyingDisk {
  const root = parent ? mkdtempSync(join(parent, 'coord-dying-disk-')) : tempDir('coord-dying-disk-');
  const image = join(root, 'disk.img');
  const dir = join(root, 'mnt');
  mkdirSync(dir);
  closeSync(openSync(image, 'w'));
  run('truncate', ['-s', String(bytes), image]);
  run('mkfs.ext4', ['-q', '-F', image]);
  run('mount', ['-o', 'loop', image, dir]);
  let mounted = true;
  return {
    dir,
    shutDown: (flag = 0) => run('python3', ['-c', SHUTDOWN(dir, flag)]),
    remount() {
      run('umount', [dir]);
      run('mount', ['-o', 'loop', image, dir]);
    },
    unmount() {
      if (mounted) run('umount', ['-l', dir]);
      mounted = false;
      rmSync(root, { recursive: true, force: true });
    },
  };
}
