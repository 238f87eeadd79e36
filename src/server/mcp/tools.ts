/**
 * The MCP tools of SPEC §5, derived from the operations table: each input
 * schema is the operation's own zod input without `agent` and `board` (they
 * come from the session), and each handler builds the op input and calls
 * `invoke` — parse, call, say it short. No tool adds behaviour of its own.
 */

import type { Tool } from './tool.js';
import { editTools } from './tools-edits.js';
import { lockTools } from './tools-locks.js';
import { messageTools } from './tools-messages.js';
import { taskTools } from './tools-tasks.js';

export type { Tool, ToolEnv, ToolOutput } from './tool.js';

/** In the order they are listed. */
export const tools: Tool[] = [...taskTools, ...lockTools, ...messageTools, ...editTools];
