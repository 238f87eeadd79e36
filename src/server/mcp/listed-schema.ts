/**
 * A tool's input schema as the SDK sees it: the zod schema's JSON Schema is
 * what `tools/list` shows, but validation is left to core's `parseInput`, so
 * bad arguments read `invalid_request: …` like every other failure instead
 * of the SDK's own wording.
 */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';

export type ToolArgs = Record<string, unknown>;

export function listedSchema(schema: z.ZodObject): StandardSchemaWithJSON<ToolArgs> {
  const std = schema['~standard'];
  return {
    '~standard': {
      version: 1,
      vendor: std.vendor,
      jsonSchema: std.jsonSchema,
      validate: (value) => ({ value: isRecord(value) ? value : {} }),
    },
  };
}

const isRecord = (v: unknown): v is ToolArgs => typeof v === 'object' && v !== null && !Array.isArray(v);
