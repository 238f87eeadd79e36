/** Polls `fn` until it returns something truthy; the deadline only guards against a hang (never sleep-then-assert). */
export async function waitFor<T>(fn: () => T | Promise<T>, what = 'condition', deadlineMs = 30_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
