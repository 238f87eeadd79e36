import { after, before, test } from 'node:test';
import { makePostgresStore } from '../postgres/make-store.js';
import { type PgServer, startPostgres } from '../support/postgres.js';
import { runStoreContract } from './contract.js';
import { runLockContract } from './contract-locks.js';
import { checkMessagesModelBased } from './messages-model.js';
import { checkModelBased } from './model-based.js';

let server: PgServer | undefined;
let url = '';
before(async () => {
  server = await startPostgres();
  url = await server.createDatabase();
});
after(() => server?.stop());

const makeStore = makePostgresStore(() => url);
runStoreContract('postgres', makeStore);
runLockContract('postgres', makeStore);

test('postgres: random command sequences agree with the model of the board, and every invariant holds after each step', async () => {
  await checkModelBased(makeStore);
});

test('postgres: random message sequences agree with the model of SPEC §12; delivery and ack never go backwards', async () => {
  await checkMessagesModelBased(makeStore, 25);
});
