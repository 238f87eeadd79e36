/** Remote connectors (SPEC §16) of the SQLite store: its port (core/connectors/connector-ports.ts) over connectors.ts. */
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
import type { SqliteCore } from './store-core.js';

export const connectorsPort = (s: SqliteCore): Connectors => ({
  registerClient: (c, maxUnused) => s.write((tx) => registerClient(tx, c, maxUnused)),
  getClient: async (clientId) => s.read(() => getClient(s.db, clientId)),
  addConnectCode: (c) => s.write((tx) => addConnectCode(tx, c)),
  approve: (cmd) => s.write((tx) => approve(tx, cmd)),
  redeemCode: (cmd) => s.write((tx) => redeemCode(tx, cmd)),
  rotateRefresh: (cmd) => s.write((tx) => rotateRefresh(tx, cmd)),
  async grantOfAccessToken(hash) {
    const now = s.clock.now();
    const grant = s.read(() => grantOfAccessToken(s.db, hash, now));
    if (grant && needsTouch(grant, now)) await s.write((tx) => touchGrant(tx, grant.id));
    return grant;
  },
  listGrants: async () => s.read(() => listGrants(s.db)),
  pendingConnect: async () => s.read(() => pendingConnect(s.db, s.clock.now())),
  revokeGrant: (cmd) => s.write((tx) => revokeGrant(tx, cmd)),
});
