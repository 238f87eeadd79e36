/** Every tool coord's MCP server lists (SPEC §5, §11, §12, §14): the tests compare tools/list with this. */
export const SPEC_TOOLS = [
  'post_task',
  'inbox',
  'claim_task',
  'heartbeat',
  'submit_result',
  'release_task',
  'cancel_task',
  'show_task',
  'upload_artifact',
  'lock_files',
  'unlock_files',
  'who',
  'post_plan',
  'set_deps',
  'add_note',
  'send_message',
  'ack_message',
  'list_messages',
  'decide_edit',
  'changes',
  'reserve',
];

/** SPEC §17: the core set offered to clients that load every schema into every request. */
export const CORE_TOOLS = [
  'post_task',
  'inbox',
  'claim_task',
  'heartbeat',
  'submit_result',
  'release_task',
  'show_task',
  'lock_files',
  'unlock_files',
  'who',
  'add_note',
  'send_message',
  'ack_message',
  'changes',
];

/** SPEC §17: the lean part of the core set, for a client that adds bytes of its own to every tool (Gemini CLI). */
export const LEAN_TOOLS = [
  'inbox',
  'claim_task',
  'heartbeat',
  'submit_result',
  'release_task',
  'who',
  'changes',
  'lock_files',
  'send_message',
  'ack_message',
];
