/** OpenAPI 3.1, generated from the same zod schemas the handlers validate with. */
import { z } from 'zod';
import { PATHS } from '../../api/paths.js';
import { HEALTH_URL, type Route, routes, successStatuses } from '../../api/routes.js';
import { operationNamed } from '../../core/operations.js';
import { ArtifactOutput, ErrorSchema } from '../../core/output-schemas.js';

const schema = (s: z.ZodType, io: 'input' | 'output' = 'input') =>
  z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;

const errorResponse = { description: 'Error', content: { 'application/json': { schema: schema(ErrorSchema) } } };

function operation(route: Route) {
  const op = operationNamed(route.op);
  const input = schema(op.input) as { properties?: Record<string, unknown>; required?: string[] };
  const pathNames = Object.values(route.params ?? {});
  const props = Object.entries(input.properties ?? {}).filter(([k]) => !pathNames.includes(k));
  const required = (input.required ?? []).filter((k) => !pathNames.includes(k));
  const alsoAs = route.alsoAs;
  const chooser = { ...alsoAs?.query, ...alsoAs?.json };
  const parameters = [
    ...Object.entries(route.params ?? {}).map(([name, field]) => ({
      name,
      in: 'path',
      required: true,
      schema: input.properties?.[field] ?? { type: 'string' },
    })),
    ...(route.from === 'query'
      ? props.map(([name, s]) => ({ name, in: 'query', required: required.includes(name), schema: s }))
      : []),
    // The query that picks the other form, when the op's own input does not name it already.
    ...Object.entries(chooser)
      .filter(([name]) => !props.some(([p]) => p === name))
      .map(([name, value]) => ({ name, in: 'query', required: false, schema: { enum: [value] } })),
    ...(alsoAs?.type === 'text/event-stream'
      ? [{ name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'integer', minimum: 0 } }]
      : []),
  ];
  const body =
    route.from === 'body'
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { type: 'object', properties: Object.fromEntries(props), required } },
            },
          },
        }
      : {};
  const content = {
    'application/json': { schema: schema(op.output, 'output') },
    ...(alsoAs ? { [alsoAs.type]: { schema: { type: 'string' } } } : {}),
  };
  const [usual, ...others] = successStatuses(route);
  const answers: Record<string, unknown> = { [String(usual)]: { description: 'OK', content } };
  for (const status of others)
    answers[String(status)] =
      status === 204 ? { description: 'Nothing to answer (no body)' } : { description: 'OK', content };
  return {
    operationId: op.name,
    summary: route.summary ?? op.summary,
    parameters,
    ...body,
    responses: { ...answers, default: errorResponse },
  };
}

const toOpenApiPath = (url: string) => url.replace(/:([a-z_]+)/g, '{$1}');

export function openApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const p = toOpenApiPath(r.url);
    paths[p] = { ...paths[p], [r.method.toLowerCase()]: operation(r) };
  }
  paths[HEALTH_URL] = { get: { operationId: 'health', security: [], responses: { '200': { description: 'OK' } } } };
  paths[toOpenApiPath(PATHS.artifact)] = {
    put: {
      operationId: 'upload_artifact',
      summary: 'Upload raw bytes as an artifact of a claimed task (Coord-Claim-Id header).',
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'artifact_id', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'Coord-Claim-Id', in: 'header', required: true, schema: { type: 'string' } },
        { name: 'Coord-Name', in: 'header', required: false, schema: { type: 'string' } },
      ],
      requestBody: { required: true, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
      responses: {
        '201': {
          description: 'Created',
          content: { 'application/json': { schema: schema(ArtifactOutput, 'output') } },
        },
        '200': { description: 'Same bytes uploaded before' },
        default: errorResponse,
      },
    },
    get: {
      operationId: 'get_artifact',
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'artifact_id', in: 'path', required: true, schema: { type: 'string' } },
      ],
      responses: { '200': { description: 'The bytes' }, default: errorResponse },
    },
  };
  return {
    openapi: '3.1.0',
    info: { title: 'coord', version, description: 'Coordination daemon for AI coding agents (SPEC §4).' },
    servers: [{ url: '/' }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths,
  };
}
