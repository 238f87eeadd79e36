/** Why the daemon could not start, as a sentence that says what to do: a file-system error names its path. */
const ADVICE: Record<string, (path: string) => string> = {
  EROFS: (p) => `${p} is on a read-only file system — remount it read-write, or pass another --state`,
  EACCES: (p) => `permission denied on ${p} — check its owner and mode, or pass another --state`,
  EPERM: (p) => `permission denied on ${p} — check its owner and mode, or pass another --state`,
  ENOSPC: (p) => `no space left on the disk of ${p} — free space there, then start again`,
  EDQUOT: (p) => `disk quota exceeded for ${p} — free space there, then start again`,
};

/** A listen error carries the address and port it could not bind. */
type ListenError = NodeJS.ErrnoException & { address?: string; port?: number };

export function startFailure(e: unknown, stateDir: string): string {
  const err = e as ListenError | undefined;
  if (err?.code === 'EADDRINUSE')
    return (
      `port ${err.port ?? '?'} on ${err.address ?? 'this host'} is already taken by another process ` +
      `(another coord daemon with a different --state, or another server) — stop it, or pass --port N ` +
      `(--port 0 picks a free one)`
    );
  const advice = err?.code ? ADVICE[err.code] : undefined;
  if (advice) return advice(err?.path ?? stateDir);
  return e instanceof Error ? e.message : String(e);
}
