import { test } from 'node:test';
import { checkMessagesModelBased } from '../store/messages-model.js';
import { makeSqliteStore } from '../support/ctx.js';

test('random sequences of sends, broadcasts, inboxes, lists, shows, acks and pending reads agree with the model of SPEC §12 on SQLite: delivery and ack never go backwards, and nobody is shown a message it is not a party to', async () => {
  await checkMessagesModelBased(makeSqliteStore);
});
