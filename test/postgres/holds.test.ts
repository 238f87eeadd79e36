/** SPEC §14's holds suite on PostgreSQL with two daemons: agent A's daemon and agent B's are two processes. */
import { holdsSuite } from '../worktrees/suites/holds.js';
import { startCluster } from './cluster.js';

holdsSuite('postgres, two daemons', async () => {
  const c = await startCluster(2);
  return { daemons: c.daemons, stop: () => c.stop() };
});
