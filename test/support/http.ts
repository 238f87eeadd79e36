/** The HTTP app in process (no socket): most HTTP tests call it through fastify's inject. */
import type { FastifyInstance } from 'fastify';
import { buildHttpApp, type HttpOptions } from '../../src/server/http/app.js';
import { parsePublicUrl } from '../../src/server/oauth/public-site.js';
import { type Harness, harness, type MakeStore, makeSqliteStore } from './ctx.js';

export const TEST_TOKEN = 'test-token-0123456789abcdef';
export const TEST_PORT = 7777;

export interface HttpHarness extends Harness {
  app: FastifyInstance;
  /** inject with the token and a loopback Host unless the test overrides them. */
  req(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: any; text: string; headers: Record<string, unknown> }>;
}

export async function httpHarness(
  make: MakeStore = makeSqliteStore,
  opts: { publicUrl?: string; oauthLimits?: HttpOptions['oauthLimits'] } = {},
): Promise<HttpHarness> {
  const h = await harness(make);
  const site = opts.publicUrl === undefined ? undefined : parsePublicUrl(opts.publicUrl);
  if (site) h.ctx.public_url = site.url;
  const app = buildHttpApp({
    ctx: h.ctx,
    token: TEST_TOKEN,
    version: 'test',
    port: () => TEST_PORT,
    site,
    ...(opts.oauthLimits ? { oauthLimits: opts.oauthLimits } : {}),
  });
  await app.ready();
  return {
    ...h,
    app,
    async req(method, url, body, headers = {}) {
      const res = await app.inject({
        method,
        url,
        headers: {
          host: `127.0.0.1:${TEST_PORT}`,
          authorization: `Bearer ${TEST_TOKEN}`,
          ...(body !== undefined && typeof body !== 'string' && !(body instanceof Buffer)
            ? { 'content-type': 'application/json' }
            : {}),
          ...headers,
        },
        ...(body === undefined
          ? {}
          : { payload: typeof body === 'string' || body instanceof Buffer ? body : JSON.stringify(body) }),
      });
      let json: unknown;
      try {
        json = res.json();
      } catch {
        json = undefined;
      }
      return { status: res.statusCode, json, text: res.body, headers: res.headers };
    },
  };
}
