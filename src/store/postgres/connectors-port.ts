/** Remote connectors (SPEC §16) of the PostgreSQL store: its port (core/connectors/connector-ports.ts) over connectors.ts. */
import type { Connectors } from '../../core/connectors/connector-ports.js';
import { needsTouch } from '../shared/connector-rows.js';
import {
  addConnectCode,
  approve,
  getClient,
  grantOfAccessToken,
  listGrants,
  pendingConnect,
  redeemCode,
  registerClient,
  revokeGrant,
  rotateRefresh,
  touchGrant,
} from './connectors.js';
import { guarded } from './pg-errors.js';
import type { PostgresCore } from './store-core.js';

export const connectorsPort = (s: PostgresCore): Connectors => ({
  registerClient: (c, maxUnused) => s.write((tx) => registerClient(tx, c, maxUnused)),
  getClient: (clientId) => guarded(() => getClient(s.pool, clientId)),
  addConnectCode: (c) => s.write((tx) => addConnectCode(tx, c)),
  approve: (cmd) => s.write((tx) => approve(tx, cmd)),
  redeemCode: (cmd) => s.write((tx) => redeemCode(tx, cmd)),
  rotateRefresh: (cmd) => s.write((tx) => rotateRefresh(tx, cmd)),
  grantOfAccessToken: (hash) =>
    guarded(async () => {
      const now = await s.now();
      const grant = await grantOfAccessToken(s.pool, hash, now);
      if (grant && needsTouch(grant, now)) await s.write((tx) => touchGrant(tx, grant.id));
      return grant;
    }),
  listGrants: () => guarded(() => listGrants(s.pool)),
  pendingConnect: () => guarded(async () => pendingConnect(s.pool, await s.now())),
  revokeGrant: (cmd) => s.write((tx) => revokeGrant(tx, cmd)),
});
