import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';

/**
 * A temp file made 0600 from the start, fsynced, renamed over the target: a reader never sees it
 * half-written (daemon.json, the token), and a failed write leaves no temp file behind.
 */
export function writePrivateFile(target: string, body: string): void {
  // Web Crypto's random source, not node:crypto's: a hook that only reads daemon.json must not load node:crypto.
  const temp = `${target}.${process.pid}.${Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(4))).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, body);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    unlinkSync(temp);
    throw e;
  }
  closeSync(fd);
  try {
    renameSync(temp, target);
  } catch (e) {
    unlinkSync(temp);
    throw e;
  }
}
