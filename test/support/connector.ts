/**
 * A remote connector in process (SPEC §16): registered, approved with a `coord connect` code, holding an
 * access token, and an MCP session opened through the public URL with it.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { HttpHarness } from './http.js';

export const SITE = 'https://coord.example.test';
export const RESOURCE = `${SITE}/mcp`;
export const CALLBACK = 'https://claude.ai/api/mcp/auth_callback';
/** What a tunnel sends: the public Host, the scheme it terminated, no coord token. */
export const PUB = { host: 'coord.example.test', 'x-forwarded-proto': 'https', authorization: '' };
export const FORM = { ...PUB, 'content-type': 'application/x-www-form-urlencoded' };

export const form = (o: Record<string, string | undefined>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(o)) if (v !== undefined) p.set(k, v);
  return p.toString();
};

/** A registered client's authorization request, with its PKCE verifier. */
export async function authRequest(h: HttpHarness, headers: Record<string, string> = {}) {
  const reg = await h.req(
    'POST',
    '/oauth/register',
    { redirect_uris: [CALLBACK], client_name: 'Claude', token_endpoint_auth_method: 'none' },
    { ...PUB, ...headers },
  );
  assert.equal(reg.status, 201, reg.text);
  const verifier = randomBytes(32).toString('base64url');
  const params = {
    response_type: 'code',
    client_id: reg.json.client_id as string,
    redirect_uri: CALLBACK,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'st4te',
    resource: RESOURCE,
  };
  return { client_id: params.client_id, verifier, params };
}

/** The owner approves a connector on `board` as `agent`; its access token. */
export async function grantConnector(h: HttpHarness, board: string, agent: string): Promise<string> {
  const a = await authRequest(h);
  const code = (await h.req('POST', '/v1/connect', { board, agent })).json.code as string;
  const ok = await h.req('POST', '/oauth/authorize', form({ ...a.params, board, agent, code, decision: 'approve' }), {
    ...FORM,
    origin: SITE,
  });
  assert.equal(ok.status, 303, ok.text);
  const issued = new URL(String(ok.headers.location)).searchParams.get('code') ?? '';
  const tok = await h.req(
    'POST',
    '/oauth/token',
    form({
      grant_type: 'authorization_code',
      code: issued,
      code_verifier: a.verifier,
      client_id: a.client_id,
      redirect_uri: CALLBACK,
      resource: RESOURCE,
    }),
    FORM,
  );
  assert.equal(tok.status, 200, tok.text);
  return tok.json.access_token as string;
}

export interface ToolAnswer {
  isError: boolean;
  text: string;
  /** The whole JSON-RPC answer as sent, to search for what must not be in it. */
  raw: string;
}

/** An MCP session of the connector at the public /mcp: call its tools by name. */
export async function connectorSession(h: HttpHarness, access: string) {
  let id = 0;
  let session = '';
  const post = async (body: object) => {
    const res = await h.req('POST', '/mcp', body, {
      ...PUB,
      authorization: `Bearer ${access}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session ? { 'mcp-session-id': session } : {}),
    });
    assert.ok(res.status < 300, res.text);
    const line = res.text.split('\n').find((l) => l.startsWith('data: '));
    return { res, raw: res.text, msg: line ? JSON.parse(line.slice(6)) : res.json };
  };
  const init = await post({
    jsonrpc: '2.0',
    id: id++,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-ai', version: '1' } },
  });
  session = String(init.res.headers['mcp-session-id'] ?? '');
  assert.ok(session, init.raw);
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    async call(name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
      const { msg, raw } = await post({
        jsonrpc: '2.0',
        id: id++,
        method: 'tools/call',
        params: { name, arguments: args },
      });
      const result = msg.result ?? {};
      return { isError: result.isError === true, text: String(result.content?.[0]?.text ?? ''), raw };
    },
  };
}
