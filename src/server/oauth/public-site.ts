/**
 * `--public-url https://HOST[/prefix]` (SPEC §16): where a tunnel or reverse proxy the user runs reaches the
 * daemon, which still listens on loopback. Everything the OAuth edge says about itself derives from it.
 */
export interface PublicSite {
  /** `https://HOST[/prefix]`, no trailing slash: the issuer (RFC 8414) and the base of every URL below. */
  url: string;
  /** `https://HOST` (with a port when one is given). */
  origin: string;
  /** `HOST[:port]`, lowercase: the Host header a public request carries. */
  host: string;
  /** `/prefix` or '' — the proxy forwards it, coord strips it. */
  prefix: string;
  /** The protected resource (RFC 8707/9728): `<url>/mcp`. */
  resource: string;
  /** The first protected resource metadata URL (RFC 9728 §3.1): `https://HOST/.well-known/oauth-protected-resource[/prefix]/mcp`. */
  resourceMetadataUrl: string;
}

export function parsePublicUrl(raw: string): PublicSite {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`--public-url must be a URL such as https://coord.example.com, got ${JSON.stringify(raw)}`);
  }
  // Chat hosts reach connectors only over TLS, and OAuth 2.1 asks it of every endpoint but loopback ones.
  if (u.protocol !== 'https:') throw new Error(`--public-url must start with https://, got ${JSON.stringify(raw)}`);
  if (u.search !== '' || u.hash !== '' || u.username !== '' || u.password !== '') {
    throw new Error('--public-url takes no query, fragment or credentials');
  }
  const prefix = u.pathname.replace(/\/+$/, '');
  if (!/^(\/[A-Za-z0-9._~-]+)*$/.test(prefix)) {
    throw new Error(`--public-url's path must be plain segments, got ${JSON.stringify(u.pathname)}`);
  }
  const origin = u.origin;
  const url = `${origin}${prefix}`;
  return {
    url,
    origin,
    host: u.host.toLowerCase(),
    prefix,
    resource: `${url}/mcp`,
    resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource${prefix}/mcp`,
  };
}
