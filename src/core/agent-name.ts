import { randomBytes } from 'node:crypto';

/** `claude-code#a1f3`: the client's name cut to the agent-name alphabet, plus 16 random bits. */
export function derivedAgentName(clientName: string | undefined): string {
  const base =
    (clientName ?? '')
      .replace(/[^A-Za-z0-9._:@/-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 59) || 'mcp';
  return `${base}#${randomBytes(2).toString('hex')}`;
}
