/**
 * One zod schema per shape. HTTP validation, the OpenAPI document, MCP tool
 * input schemas and CLI parsing all derive from these — never a second copy.
 *
 * Each room keeps its own shapes; this file assembles the inputs most operations read, for the files that read
 * them with the rest: the fields they are made of (fields.ts), the board's (board/task-schemas.ts), the locks'
 * (edits/lock-schemas.ts) and task JSON's `integration` (integration/integration-schemas.ts). The other rooms'
 * operations read their own (messages/message-schemas.ts, board/plan-schemas.ts, attention/attention-schemas.ts).
 */
export * from './board/task-schemas.js';
export * from './edits/lock-schemas.js';
export * from './fields.js';
export { IntegrationSchema, IntegrationStateSchema } from './integration/integration-schemas.js';
