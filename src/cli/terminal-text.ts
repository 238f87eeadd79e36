/**
 * What the CLI prints for humans goes to a terminal: a control character in a task body (or an older title)
 * posted by another agent must not be able to move the cursor, recolour or clear the screen. Each is shown in
 * caret notation (ESC as ^[); newline and tab stay. --json output is JSON-escaped already.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export const terminalText = (s: string): string =>
  s.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x80 ? `^${String.fromCharCode(code ^ 0x40)}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
