/**
 * The tool names of the clients whose edits coord sees from a plugin running inside them (OpenCode, Kilo,
 * Cline, Pi): the one list their profiles (`tools`) and coord's plugins (src/plugins) both read, so the two
 * cannot drift apart (Cline's shell tools once did). It imports nothing: a plugin loads it into its client.
 */
export interface ToolNames {
  /** Tools that write files. */
  edit: readonly string[];
  /** Shell tools (SPEC §10 shell edits are seen around them). */
  shell: readonly string[];
}

/** OpenCode and its fork Kilo. */
export const OPENCODE_TOOLS: ToolNames = {
  edit: ['edit', 'write', 'multiedit', 'patch', 'apply_patch'],
  shell: ['bash'],
};
/** Cline: `execute_command` is the older name of its shell tool. */
export const CLINE_TOOLS: ToolNames = {
  edit: ['editor', 'write_to_file', 'replace_in_file', 'apply_patch'],
  shell: ['run_commands', 'execute_command'],
};
export const PI_TOOLS: ToolNames = { edit: ['edit', 'write'], shell: ['bash'] };
