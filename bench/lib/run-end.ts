/** Clean-ups that must wait until every scenario has run (shared servers such as PostgreSQL). */
const hooks: (() => Promise<void> | void)[] = [];

export const onRunEnd = (fn: () => Promise<void> | void): void => {
  hooks.push(fn);
};

export async function runEndHooks(): Promise<void> {
  for (const fn of hooks.splice(0).reverse()) {
    try {
      await fn();
    } catch (err) {
      console.error('bench clean-up failed:', err);
    }
  }
}
