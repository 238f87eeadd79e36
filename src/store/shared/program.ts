/**
 * A feature's logic written once for both stores: a generator that yields the statements it needs and gets
 * their answers back. The statements' text comes from the store's own table for the feature
 * (`<store>/<feature>-sql.ts`, typed here by the feature's `…Sql` type), with `@name` parameters in both
 * dialects; an empty text is a statement the dialect does without. A feature's runner (composed-store.ts,
 * over the store's core) runs a program with the store's `<store>/runner.ts`: SQLite synchronously inside its
 * (synchronous) transaction, PostgreSQL asynchronously in its transaction. Parameters are numbers, strings, null, booleans and lists of strings (SQLite gets a
 * boolean as 1 or 0 and a list as JSON text, read with json_each; PostgreSQL gets them as they are).
 */
import type { NewEvent } from './new-event.js';

export type Step =
  | { op: 'get' | 'all' | 'run'; text: string; params: object }
  | { op: 'event'; event: NewEvent }
  | { op: 'call'; fn: InTx<unknown[], unknown>; args: unknown[] };

/**
 * The store's own code (a feature not written once yet), run in the program's transaction: a function of
 * the store's transaction (SQLite's synchronous, PostgreSQL's may return a promise), named in its table.
 */
export type InTx<A extends unknown[], R> = (tx: never, ...args: A) => R | Promise<R>;

/** What a program yields, and what it returns. */
export type Prog<T> = Generator<Step, T, unknown>;

/** What a program of a write sees: the statements in the store's dialect and the transaction's instant. */
export interface Q<S> {
  readonly sql: S;
  readonly now: number;
}

/** How a feature's programs run (composed-store.ts builds it over the store's core and `<store>/runner.ts`). */
export interface Runner<S> {
  /** One write transaction (the store's `write`): due rows moved first, events heard after the commit. */
  write<T>(prog: (q: Q<S>) => Prog<T>): Promise<T>;
  /** A read outside any transaction; a storage fault answers store_unavailable. */
  read<T>(prog: (sql: S) => Prog<T>): Promise<T>;
  /** Now, for a read that needs it (PostgreSQL: the injected clock's, or the database's). */
  now(): Promise<number>;
}

/** The first row, or undefined. */
export function* get<T>(text: string, params: object = {}): Prog<T | undefined> {
  return (yield { op: 'get', text, params }) as T | undefined;
}

export function* all<T>(text: string, params: object = {}): Prog<T[]> {
  return (yield { op: 'all', text, params }) as T[];
}

/** A statement whose rows are not read; the number of rows it changed. */
export function* run(text: string, params: object = {}): Prog<number> {
  return (yield { op: 'run', text, params }) as number;
}

export function* call<A extends unknown[], R>(fn: InTx<A, R>, ...args: A): Prog<R> {
  return (yield { op: 'call', fn: fn as InTx<unknown[], unknown>, args }) as R;
}

/** Appends an event to the write's transaction. */
export function* emit(event: NewEvent): Prog<void> {
  yield { op: 'event', event };
}

/** A step that runs a statement in the store's dialect (a non-empty text). */
export type StatementStep = Extract<Step, { op: 'get' | 'all' | 'run' }>;

const isStatement = (s: Step): s is StatementStep => s.op !== 'call' && s.op !== 'event' && s.text !== '';

/**
 * Runs a program to its end, the same in both runners (`<store>/runner.ts`): a statement is answered by the
 * store's `statement`; any other step is a call of the store's code, an event appended to the write (`tx`, with
 * the store's `appendEvent`), or a statement the dialect does without (empty text). An answer that is a promise
 * (PostgreSQL's) is awaited and the rest runs after it; with plain answers (SQLite's, whose transaction must stay
 * synchronous) the program runs to its end in the caller's turn and its value is returned as it is.
 */
export function drive<T, Tx>(
  prog: Prog<T>,
  tx: Tx | undefined,
  appendEvent: (tx: Tx, e: NewEvent) => void,
  statement: (s: StatementStep) => unknown,
): T | Promise<T> {
  const answer = (s: Step): unknown => (isStatement(s) ? statement(s) : answerWithout(s, tx, appendEvent));
  const from = (next: IteratorResult<Step, T>): T | Promise<T> => {
    while (!next.done) {
      const a = answer(next.value);
      if (a instanceof Promise) return a.then((v) => from(prog.next(v)));
      next = prog.next(a);
    }
    return next.value;
  };
  return from(prog.next());
}

function answerWithout<Tx>(s: Step, tx: Tx | undefined, appendEvent: (tx: Tx, e: NewEvent) => void): unknown {
  if (s.op === 'call') return s.fn(inWrite(tx, 'a call') as never, ...s.args);
  if (s.op === 'event') return appendEvent(inWrite(tx, 'an event'), s.event);
  return s.op === 'all' ? [] : s.op === 'run' ? 0 : undefined;
}

function inWrite<Tx>(tx: Tx | undefined, what: string): Tx {
  if (!tx) throw new Error(`${what} outside a write`);
  return tx;
}
