/** Answers in the OAuth error form (RFC 6749 §5.2): `{error, error_description}`, never cached. */
import type { FastifyReply } from 'fastify';

export function oauthError(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): FastifyReply {
  return reply
    .code(status)
    .headers({ 'cache-control': 'no-store', ...headers })
    .type('application/json')
    .send({ error, error_description: description });
}

/** A web `Response` (the MCP SDK's bearer challenge) sent through fastify. */
export async function sendResponse(reply: FastifyReply, res: Response): Promise<FastifyReply> {
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    headers[k] = v;
  });
  return reply
    .code(res.status)
    .headers(headers)
    .send(await res.text());
}
