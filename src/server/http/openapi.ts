/** OpenAPI 3.1, generated from the same zod schemas the handlers validate with. */
import { z } from 'zod';
import { type Route, routes } from '../../api/routes.js';
import { ArtifactOutput, ErrorSchema, EventsOutput, InboxInput, InboxOutput } from '../../core/schemas.js';

const schema = (s: z.ZodType, io: 'input' | 'output' = 'input') =>
  z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;

const errorResponse = { description: 'Error', content: { 'application/json': { schema: schema(ErrorSchema) } } };

function operation(route: Route) {
  const input = schema(route.op.input) as { properties?: Record<string, unknown>; required?: string[] };
  const pathNames = Object.values(route.params ?? {});
  const props = Object.entries(input.properties ?? {}).filter(([k]) => !pathNames.includes(k));
  const required = (input.required ?? []).filter((k) => !pathNames.includes(k));
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
  return {
    operationId: route.op.name,
    summary: route.op.summary,
    parameters,
    ...body,
    responses: {
      [route.method === 'POST' && (route.url === '/v1/tasks' || route.url === '/v1/locks') ? '201' : '200']: {
        description: 'OK',
        content: { 'application/json': { schema: schema(route.op.output, 'output') } },
      },
      ...(route.url === '/v1/claim' ? { '204': { description: 'Nothing to claim' } } : {}),
      default: errorResponse,
    },
  };
}

const toOpenApiPath = (url: string) => url.replace(/:([a-z_]+)/g, '{$1}');

export function openApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const p = toOpenApiPath(r.url);
    paths[p] = { ...paths[p], [r.method.toLowerCase()]: operation(r) };
  }
  paths['/v1/health'] = { get: { operationId: 'health', security: [], responses: { '200': { description: 'OK' } } } };
  paths['/v1/inbox'] = {
    get: {
      operationId: 'inbox',
      summary: 'Your inbox; ?format=text for the compact form a model reads.',
      parameters: Object.entries((schema(InboxInput) as { properties: Record<string, unknown> }).properties).map(
        ([name, s]) => ({ name, in: 'query', required: name === 'agent', schema: s }),
      ),
      responses: {
        '200': {
          description: 'OK',
          content: {
            'application/json': { schema: schema(InboxOutput, 'output') },
            'text/plain': { schema: { type: 'string' } },
          },
        },
        default: errorResponse,
      },
    },
  };
  paths['/v1/events'] = {
    get: {
      operationId: 'events',
      summary:
        'The event log as Server-Sent Events (id = seq, event = type); Last-Event-ID or ?since resumes right after that event. ?format=json answers one page of list_events instead.',
      parameters: [
        { name: 'board', in: 'query', required: false, schema: { type: 'string' } },
        { name: 'since', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } },
        { name: 'format', in: 'query', required: false, schema: { enum: ['json'] } },
        { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000 } },
        {
          name: 'task',
          in: 'query',
          required: false,
          schema: { type: 'string' },
          description: "with format=json: only this task's events",
        },
        {
          name: 'tail',
          in: 'query',
          required: false,
          schema: { type: 'boolean' },
          description: 'with format=json: the newest `limit` events, oldest first',
        },
        { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'integer', minimum: 0 } },
      ],
      responses: {
        '200': {
          description: 'OK',
          content: {
            'text/event-stream': { schema: { type: 'string' } },
            'application/json': { schema: schema(EventsOutput, 'output') },
          },
        },
        default: errorResponse,
      },
    },
  };
  paths['/v1/tasks/{id}/artifacts/{artifact_id}'] = {
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
