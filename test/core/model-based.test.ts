import { test } from 'node:test';
import { checkModelBased } from '../store/model-based.js';
import { makeSqliteStore } from '../support/ctx.js';

test('random sequences of post, claim, claim-next, heartbeat, release, submit, cancel and time agree with the model of SPEC §2–§3 on SQLite', async () => {
  await checkModelBased(makeSqliteStore);
});
