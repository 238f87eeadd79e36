import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth, so equal values hash equally however they were written. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** SPEC rule 6: result_hash = sha256(status + "\n" + canonical JSON of result). */
export const resultHash = (status: string, result: unknown): string => sha256Hex(`${status}\n${canonicalJson(result)}`);
