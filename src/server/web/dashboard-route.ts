/**
 * GET / — the dashboard (SPEC §9): static files, no build step, no token
 * needed to load them. The page reads the token from the URL fragment (never
 * sent to the server) and calls /v1 with an Authorization header.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

// Everything from this origin, nothing inline, nothing from elsewhere; no Referer leaves the page.
const HEADERS = {
  'cache-control': 'no-cache',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

interface Asset {
  type: string;
  body: Buffer;
}

/** The files next to this module (src/ under tsx; dist/ after `npm run build`, which copies them). */
function loadAssets(): Map<string, Asset> {
  const dir = new URL('./', import.meta.url);
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    // This module itself (compiled to .js in dist/) is server code, not an asset.
    if (type && !name.startsWith('dashboard-route.'))
      assets.set(name, { type, body: readFileSync(new URL(name, dir)) });
  }
  return assets;
}

export function registerDashboard(app: FastifyInstance): void {
  const assets = loadAssets();
  const send = (reply: FastifyReply, asset: Asset | undefined) => {
    if (!asset) return reply.callNotFound();
    return reply.headers(HEADERS).type(asset.type).send(asset.body);
  };
  app.get('/', (_req, reply) => send(reply, assets.get('index.html')));
  app.get('/ui/:name', (req, reply) => send(reply, assets.get((req.params as { name: string }).name)));
}
