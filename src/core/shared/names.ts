/**
 * The rule for agent and board names, without zod: schemas.ts builds its schemas on it, and `coord mcp`
 * checks its flags with it at start-up (loading zod there would cost more than the rest of its start).
 */
export const NAME_RE = /^[A-Za-z0-9._:#@/-]{1,64}$/;

export const isAgentName = (s: string): boolean => NAME_RE.test(s);
export const isBoardName = (s: string): boolean => NAME_RE.test(s);
