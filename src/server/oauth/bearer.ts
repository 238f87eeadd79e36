/**
 * The resource-server half at the public `/mcp` (SPEC §16): only an OAuth access token issued for this
 * resource counts — never `<state>/token`. The MCP SDK parses the header, checks the resource and the
 * expiry, and builds the 401 with `WWW-Authenticate: Bearer resource_metadata="…"`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Grant } from '../../core/connectors/connector-ports.js';
import { invoke } from '../../core/invoke.js';
import type { Ctx } from '../../core/operation.js';
import { grantOfAccessToken } from '../../core/ops/connector-grants.js';
import { secretHash } from '../../core/ops/connectors.js';
import { sendResponse } from './oauth-reply.js';
import type { PublicSite } from './public-site.js';
import { SCOPE } from './token.js';

/** The grant a public /mcp request acts under, or null once it has been answered 401. */
export type ConnectorAuth = (req: FastifyRequest, reply: FastifyReply) => Promise<Grant | null>;

export function connectorAuth(ctx: Ctx, site: PublicSite): ConnectorAuth {
  const resourceMetadataUrl = site.resourceMetadataUrl;
  return async (req, reply) => {
    const { OAuthError, OAuthErrorCode, bearerAuthChallengeResponse, verifyBearerToken } = await import(
      '@modelcontextprotocol/server'
    );
    let grant: Grant | null = null;
    try {
      await verifyBearerToken(req.headers.authorization, {
        resourceMetadataUrl,
        expectedResource: new URL(site.resource),
        verifier: {
          async verifyAccessToken(token) {
            const { grant: g } = await invoke(grantOfAccessToken, ctx, { hash: secretHash(token) });
            if (!g) throw new OAuthError(OAuthErrorCode.InvalidToken, 'unknown, expired or revoked access token');
            grant = g;
            return {
              token,
              clientId: g.client_id,
              scopes: [SCOPE],
              expiresAt: Math.floor(g.token_expires_at / 1000),
              resource: new URL(g.resource),
            };
          },
        },
      });
      return grant;
    } catch (err) {
      await sendResponse(reply, bearerAuthChallengeResponse(err, { resourceMetadataUrl }));
      return null;
    }
  };
}
