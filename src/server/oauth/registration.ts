/**
 * Dynamic client registration (RFC 7591), as chat hosts use it: claude.ai registers itself with its
 * callback `https://claude.ai/api/mcp/auth_callback`. Redirect URIs are https, or http on loopback
 * (OAuth 2.1 §8.4.2); they are later matched exactly. Anything else is `invalid_redirect_uri` or
 * `invalid_client_metadata`, and nothing is stored.
 */
import { z } from 'zod';

/** A registration is a few hundred bytes; 16 KiB leaves room for long names and many URIs. */
export const REGISTRATION_LIMIT = 16 * 1024;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a redirect URI is refused, or null. */
export function redirectUriProblem(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `${JSON.stringify(raw)} is not an absolute URL`;
  }
  if (u.hash !== '' || raw.includes('#')) return `${raw} has a fragment`;
  if (u.username !== '' || u.password !== '') return `${raw} carries credentials`;
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname)) return null;
  return `${raw} is neither https nor http on loopback`;
}

const Text = (max: number) => z.string().max(max);

export const RegistrationRequest = z.object({
  redirect_uris: z.array(z.string().max(2000)).min(1, 'name at least one redirect URI').max(10),
  client_name: Text(200).optional(),
  token_endpoint_auth_method: z.enum(['none', 'client_secret_post', 'client_secret_basic']).optional(),
  grant_types: z
    .array(z.enum(['authorization_code', 'refresh_token']))
    .max(2)
    .optional(),
  response_types: z.array(z.literal('code')).max(1).optional(),
  scope: Text(1000).optional(),
  client_uri: Text(2000).optional(),
  logo_uri: Text(2000).optional(),
  software_id: Text(200).optional(),
  software_version: Text(200).optional(),
});
export type RegistrationRequest = z.output<typeof RegistrationRequest>;

/** The registration refused in RFC 7591 §3.2.2's words, or the metadata to keep. */
export function checkRegistration(
  body: unknown,
): { ok: true; metadata: RegistrationRequest } | { ok: false; error: string; description: string } {
  const parsed = RegistrationRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'body';
    const error = issue?.path[0] === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata';
    return { ok: false, error, description: `${where}: ${issue?.message ?? 'must be a JSON object'}` };
  }
  for (const uri of parsed.data.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return { ok: false, error: 'invalid_redirect_uri', description: problem };
  }
  return { ok: true, metadata: parsed.data };
}
