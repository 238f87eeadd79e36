/**
 * The one suite every store must pass (STYLE 4). Each test gets a fresh store
 * from `makeStore` and drives it through the operations, the way every
 * transport does; time moves only through the ManualClock.
 */
import { describe } from 'node:test';
import type { MakeStore } from '../support/ctx.js';
import { artifactContract } from './contract/artifacts.js';
import { claimContract } from './contract/claim.js';
import { claimNextContract } from './contract/claim-next.js';
import { connectorsContract } from './contract/connectors.js';
import { createContract } from './contract/create.js';
import { depsContract } from './contract/deps.js';
import { eventContract } from './contract/events.js';
import { finishContract } from './contract/finish.js';
import { inboxContract } from './contract/inbox.js';
import { integrationContract } from './contract/integration.js';
import { landedContract } from './contract/landed.js';
import { lazyExpiryContract } from './contract/lazy-expiry.js';
import { leaseContract } from './contract/leases.js';
import { listTasksContract } from './contract/list-tasks.js';
import { messagesContract } from './contract/messages.js';
import { notesContract } from './contract/notes.js';
import { plansContract } from './contract/plans.js';
import { privateContract } from './contract/private.js';
import { runsContract } from './contract/runs.js';

export type { MakeStore };

export function runStoreContract(name: string, makeStore: MakeStore): void {
  describe(`store contract: ${name}`, () => {
    createContract(makeStore);
    claimContract(makeStore);
    privateContract(makeStore);
    claimNextContract(makeStore);
    leaseContract(makeStore);
    finishContract(makeStore);
    artifactContract(makeStore);
    eventContract(makeStore);
    inboxContract(makeStore);
    listTasksContract(makeStore);
    lazyExpiryContract(makeStore);
    depsContract(makeStore);
    landedContract(makeStore);
    notesContract(makeStore);
    integrationContract(makeStore);
    messagesContract(makeStore);
    plansContract(makeStore);
    connectorsContract(makeStore);
    runsContract(makeStore);
  });
}
