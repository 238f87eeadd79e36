/**
 * fast-check arbitraries for hostile input, shared by the HTTP and MCP fuzzers:
 * strings an attacker or a confused model would send (NUL, lone surrogates,
 * astral characters, SQL, paths that climb out of the root, prototype keys,
 * huge strings), numbers at the edges of JSON, and JSON texts that
 * JSON.stringify cannot write (own `__proto__` keys, 1e309).
 */
import fc from 'fast-check';

/** A piece of JSON text written verbatim: `1e309` parses to Infinity, which no JS value serialises to. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a value; RawJson is written as is, and own `__proto__` keys are kept (JSON.stringify keeps them too). */
export function jsonText(v: unknown): string {
  if (v instanceof RawJson) return v.text;
  if (Array.isArray(v)) return `[${v.map(jsonText).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** An object with these own keys, `__proto__` included (a literal `{__proto__: x}` would set the prototype instead). */
export const own = (entries: [string, unknown][]): Record<string, unknown> => Object.fromEntries(entries);

export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** What a polluting payload would plant on Object.prototype; the fuzzers assert it never appears. */
export const POLLUTED = 'polluted';

export const SQL_STRINGS = [
  "'; DROP TABLE tasks;--",
  "' OR '1'='1",
  '" OR ""="',
  '1; DELETE FROM events',
  "x'); UPDATE tasks SET state='completed';--",
  '$1',
  '@agent',
  ':id',
  '?',
];

export const CLIMBING_PATHS = [
  '../../etc/passwd',
  '/etc/passwd',
  'a/../../b',
  'C:\\x',
  'C:/Windows/system32',
  '%2e%2e/',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '..',
  '.',
  './',
  '/',
  '\\\\server\\share',
  '~/.ssh/id_rsa',
  'a/./b/../../..',
  'src//x.ts',
];

export const ODD_STRINGS = [
  '',
  ' ',
  '\t\n\r',
  '\u0000',
  'a\u0000b',
  '%00',
  '\ud800',
  'x\udc00y',
  '\udbff\udfff',
  '😀',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'e\u0301',
  '\u202etxt.exe',
  '\ufeff',
  '\u2028\u2029',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '9007199254740993',
  '0x10',
  'true',
  'null',
  '[]',
  '{}',
  '<script>alert(1)</script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection payload, sent as plain text
  '${jndi:ldap://x}',
  '#',
  '#k3m9x2qa',
  '*',
  '%',
  '%zz',
  'a'.repeat(13),
  'a'.repeat(65),
];

/** Strings just around and far over the schema limits (title 500, label 40, key 200, body 64 Ki...). */
export const HUGE_STRINGS = [41, 101, 201, 256, 501, 1001, 4097, 65_537, 200_000].map((n) => 'x'.repeat(n));

const loneSurrogates = fc.string({
  unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  maxLength: 4,
});

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ODD_STRINGS, ...SQL_STRINGS, ...CLIMBING_PATHS, ...PROTO_KEYS) },
  { weight: 1, arbitrary: fc.constantFrom(...HUGE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: loneSurrogates },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', 'src/x.ts', 'claude#1'), fc.constantFrom('\u0000', '\ud800', "'--", '/../..'))
      .map(([a, b]) => a + b),
  },
);

/** Numbers at the edges: -0, unsafe integers, limits ±1, fractions. RawJson for the ones JSON.stringify can't write. */
export const hostileNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    1,
    -1,
    0.5,
    2 ** 53 + 1,
    -(2 ** 53) - 1,
    1e308,
    -1e308,
    59.999,
    60,
    61,
    86_400,
    86_401,
    1000,
    1001,
    -1001,
    500,
    501,
    2_592_000,
    2_592_001,
  ),
  fc.constantFrom(
    new RawJson('1e309'),
    new RawJson('-1e309'),
    new RawJson('-0'),
    new RawJson('1E2'),
    new RawJson('0e0'),
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** An object carrying prototype-pollution keys. */
export const pollutingObject: fc.Arbitrary<unknown> = fc.constantFrom(
  own([['__proto__', { [POLLUTED]: true }]]),
  own([['constructor', { prototype: { [POLLUTED]: true } }]]),
  own([['prototype', { [POLLUTED]: true }]]),
  own([['__proto__', own([['__proto__', { [POLLUTED]: true }]])]]),
  own([
    ['a', 1],
    ['__proto__', [POLLUTED]],
  ]),
);

/** Any value a hostile client might put in a field. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...CLIMBING_PATHS), { minLength: 1, maxLength: 4 }) },
  { weight: 1, arbitrary: pollutingObject },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constant(new RawJson(`${'['.repeat(5000)}${']'.repeat(5000)}`)) },
);

/** Whole request bodies that are not JSON objects, or not JSON at all. */
export const hostileRawBody: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '   ',
    'null',
    '[]',
    '[1,2]',
    '"text"',
    '42',
    '1e309',
    'true',
    '{',
    '{"title":',
    "{'title': 'x'}",
    '{"a":1}garbage',
    '\u0000',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    'title=x&agent=a',
    '--x\r\nContent-Disposition: form-data; name="title"\r\n\r\nx\r\n--x--',
    `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    `{"title":"x","agent":"a","result":${'['.repeat(3000)}${']'.repeat(3000)}}`,
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
);

export const CONTENT_TYPES = [
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/xml',
  ';;;',
  'application/json;;charset=',
  '*/*',
];
export const contentType = fc.constantFrom(...CONTENT_TYPES);

/** One query-string fragment: key=value pairs (encoded or not), repeated keys, bracket syntax, broken escapes. */
export function queryString(
  keys: readonly string[],
  valid: Record<string, fc.Arbitrary<string>>,
): fc.Arbitrary<string> {
  const key = fc.constantFrom(...keys, ...PROTO_KEYS, '__proto__[polluted]', 'constructor[prototype][polluted]', 'x');
  const value = fc.oneof(
    ...Object.values(valid),
    hostileString,
    hostileNumber.map((n) => (n instanceof RawJson ? n.text : String(n))),
  );
  const pair = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(key, value).map(([k, v]) => `${encodeURIComponent(k)}=${safeEncode(v)}`) },
    { weight: 2, arbitrary: fc.tuple(key, value).map(([k, v]) => `${k}=${v.replace(/[#&\s]/g, '')}`) },
    { weight: 1, arbitrary: fc.constantFrom('a[b]=c', '%', '%zz=1', '=', '&&&', 'limit', 'limit[]=1', 'since=') },
    ...Object.entries(valid).map(([k, arb]) => ({
      weight: 3,
      arbitrary: arb.map((v) => `${k}=${encodeURIComponent(v)}`),
    })),
  );
  return fc.array(pair, { maxLength: 5 }).map((pairs) => (pairs.length ? `?${pairs.join('&')}` : ''));
}

/** encodeURIComponent that survives lone surrogates (it throws on them): those are sent as raw %-bytes. */
export function safeEncode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s.replace(/[^A-Za-z0-9]/g, (c) => `%${(c.charCodeAt(0) & 0xff).toString(16).padStart(2, '0')}`);
  }
}

/** A path segment: a valid id from the run so far, or something hostile, encoded or raw. */
export const pathSegment = (known: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 5, arbitrary: known.map(safeEncode) },
    { weight: 3, arbitrary: hostileString.filter((s) => s.length > 0 && s.length < 300).map(safeEncode) },
    { weight: 1, arbitrary: fc.constantFrom('..', '%2e%2e', '..%2f..%2fetc', '%00', 'a%2Fb', '%', '%zz', '#x') },
  );
