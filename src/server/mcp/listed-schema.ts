/**
 * A tool's input schema as the SDK sees it: the zod schema's JSON Schema is
 * what `tools/list` shows, but validation is left to core's `parseInput`, so
 * bad arguments read `invalid_request: …` like every other failure instead
 * of the SDK's own wording.
 *
 * The core surface (SPEC §17) lists a smaller schema of the same tool: only
 * the arguments its `core.args` names, each with its short description, and
 * none of the bounds (`pattern`, `maxLength`, `maxItems`, …) a model does not
 * need to call it well — the daemon still checks every one of them.
 */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';

export type ToolArgs = Record<string, unknown>;

/** What the core surface lists of a tool: a short description, and the arguments shown (with theirs). */
export interface CoreListing {
  description: string;
  args: Record<string, string>;
  /**
   * Also in the lean set (SPEC §17): for a client that adds bytes of its own to every tool it offers
   * (Gemini CLI's `wait_for_previous`, about 260 B a tool), the tools an agent needs most; the rest of
   * the core set is reached through the `coord` CLI in its shell.
   */
  lean?: true;
}

/** Every MCP session lists the same tools: each listing (and its JSON Schema) is made once per daemon. */
const listed = new WeakMap<z.ZodObject, Map<CoreListing | undefined, StandardSchemaWithJSON<ToolArgs>>>();

export function listedSchema(schema: z.ZodObject, core?: CoreListing): StandardSchemaWithJSON<ToolArgs> {
  let byCore = listed.get(schema);
  if (!byCore) {
    byCore = new Map();
    listed.set(schema, byCore);
  }
  let out = byCore.get(core);
  if (!out) {
    out = listing(schema, core);
    byCore.set(core, out);
  }
  return out;
}

function listing(schema: z.ZodObject, core?: CoreListing): StandardSchemaWithJSON<ToolArgs> {
  const std = schema['~standard'];
  type Options = Parameters<typeof std.jsonSchema.input>[0];
  const convert = core
    ? {
        input: (o: Options) => compact(std.jsonSchema.input(o), core),
        output: (o: Options) => compact(std.jsonSchema.output(o), core),
      }
    : std.jsonSchema;
  // The SDK asks for the JSON Schema on every tools/list: converted once per option set.
  const made = new Map<string, Record<string, unknown>>();
  const once = (io: 'input' | 'output') => (o: Options) => {
    const key = `${io} ${JSON.stringify(o)}`;
    let out = made.get(key);
    if (!out) {
      out = convert[io](o);
      made.set(key, out);
    }
    return out;
  };
  const jsonSchema = { input: once('input'), output: once('output') };
  return {
    '~standard': {
      version: 1,
      vendor: std.vendor,
      jsonSchema,
      validate: (value) => ({ value: isRecord(value) ? value : {} }),
    },
  };
}

/** Bounds the daemon checks anyway: listing them costs every request bytes and tells a model nothing it needs. */
const BOUNDS = new Set(['$schema', 'pattern', 'maxLength', 'minLength', 'maxItems', 'minItems', 'format']);

function compact(schema: Record<string, unknown>, core: CoreListing): Record<string, unknown> {
  const props = isRecord(schema.properties) ? schema.properties : {};
  const kept: Record<string, unknown> = {};
  for (const [name, description] of Object.entries(core.args)) {
    const p = props[name];
    if (!isRecord(p)) throw new Error(`core listing names ${name}, which the tool does not take`);
    kept[name] = { ...strip(p), description };
  }
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [];
  const missing = required.filter((r) => !(r in kept));
  if (missing.length > 0) throw new Error(`core listing leaves out required ${missing.join(', ')}`);
  return { type: 'object', properties: kept, ...(required.length ? { required } : {}) };
}

function strip(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (BOUNDS.has(k) || k === 'description') continue;
    out[k] = isRecord(v) ? strip(v) : v;
  }
  return out;
}

const isRecord = (v: unknown): v is ToolArgs => typeof v === 'object' && v !== null && !Array.isArray(v);
