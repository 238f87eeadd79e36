/** Runs `coord hook …` from source as a client does: JSON on stdin, answer on stdout/stderr and the exit code. */
import { type ChildProcess, spawn } from 'node:child_process';
import { COORD, childEnv } from '../support/daemon.js';

const [cmd, ...base] = COORD as [string, ...string[]];

export interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCoord(
  args: string[],
  opts: { stdin?: unknown; env?: NodeJS.ProcessEnv; cwd?: string; started?: (child: ChildProcess) => void } = {},
): Promise<HookRun> {
  return new Promise((resolve) => {
    const child = spawn(cmd, [...base, ...args], {
      cwd: opts.cwd ?? process.cwd(),
      env: childEnv({ COORD_AGENT: '', COORD_GUARD: '', COORD_BOARD: '', CLAUDE_CODE_SESSION_ID: '', ...opts.env }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    opts.started?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    // A hook may stop reading an input it refuses (too large): the rest of the write is not an error here.
    child.stdin.on('error', () => {});
    child.stdin.end(
      opts.stdin === undefined ? '' : typeof opts.stdin === 'string' ? opts.stdin : JSON.stringify(opts.stdin),
    );
  });
}
