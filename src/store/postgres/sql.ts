/**
 * Plain parameterised SQL with readable names: `@task_id` in the text becomes
 * `$n`, and each distinct text is a named prepared statement (parsed and
 * planned once per connection).
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Queryable } from './database.js';

interface Compiled {
  name: string;
  text: string;
  params: string[];
}

const compiled = new Map<string, Compiled>();

function compile(sql: string): Compiled {
  let c = compiled.get(sql);
  if (!c) {
    const params: string[] = [];
    const text = sql.replace(/@([a-z_][a-z0-9_]*)/g, (_, name: string) => {
      if (!params.includes(name)) params.push(name);
      return `$${params.indexOf(name) + 1}`;
    });
    c = { name: `coord_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`, text, params };
    compiled.set(sql, c);
  }
  return c;
}

/** Named values; any object whose keys cover the statement's @names (extra keys are ignored). */
export type Params = object;

export function query(db: Queryable, sql: string, params: Params = {}): Promise<pg.QueryResult> {
  const c = compile(sql);
  const values = c.params.map((p) => {
    if (!(p in params)) throw new Error(`SQL parameter @${p} is missing`);
    return (params as Record<string, unknown>)[p] ?? null;
  });
  return db.query({ name: c.name, text: c.text, values });
}

export async function rows<T>(db: Queryable, sql: string, params: Params = {}): Promise<T[]> {
  return (await query(db, sql, params)).rows as T[];
}

export const row = async <T>(db: Queryable, sql: string, params: Params = {}): Promise<T | undefined> =>
  (await rows<T>(db, sql, params))[0];
