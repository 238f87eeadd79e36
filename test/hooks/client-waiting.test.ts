/**
 * SPEC §19 for each client with a hook that says its agent waits for its person: `coord setup <client>
 * --write` installs the notification (or permission-request) hook and the hook that says it goes on; the
 * very commands setup wrote, fed the client's own payload on stdin, make the agent waiting in `coord
 * attention` with the client's words, and clear it. Needs the build (`npm run build`): setup's hook
 * command runs bin/coord-hook.cjs.
 *
 * The payloads, from each client's source or documentation at the version coord pins:
 * - Gemini CLI 0.61.0: packages/core/src/hooks/hookEventHandler.ts `fireNotificationEvent` (base input,
 *   `notification_type: "ToolPermission"`, `message` from hookSystem.ts `getNotificationMessage`, `details`)
 *   and `fireBeforeAgentEvent` (`prompt`).
 * - Qwen Code 0.24.4: its scheduler's `fireNotificationHook("Qwen Code needs your permission to use …",
 *   "permission_prompt", "Permission needed")`; docs/features/hooks.md (Notification, UserPromptSubmit).
 * - Copilot CLI 1.0.102: docs.github.com hooks reference, "notification hook" input (`sessionId`,
 *   `hook_event_name: "Notification"`, `message`, `title`, `notification_type`) and `UserPromptSubmit`'s
 *   VS Code compatible input (`session_id`).
 * - Codex CLI 0.171.0: codex-rs/hooks/schema/generated/permission-request.command.input.schema.json and
 *   user-prompt-submit.command.input.schema.json.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/ctx.js';
import { childEnv, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';

interface Item {
  id: string;
  kind: string;
  what: string;
  why: string;
  agent?: string;
}

type Json = Record<string, unknown>;
type Hook = { command: string } | { url: string; headers: Record<string, string>; statusMessage: string };

/** The built CLI (setup writes the built hook's command anyway): a process that starts in a fraction of tsx's time. */
const BIN = fileURLToPath(new URL('../../bin/coord.js', import.meta.url));

/** Each client: where setup wrote its two hooks, what the client sends, and what the person reads. */
interface Case {
  client: string;
  notify(home: string): { command: string; matcher?: string | undefined };
  /** A command hook, or (Qwen Code, user scope) an http hook to the daemon's hook route. */
  resume(home: string): Hook;
  notifyInput: Json;
  resumeInput: Json;
  env?: NodeJS.ProcessEnv;
  why: string;
}

const json = (path: string): Json => JSON.parse(readFileSync(path, 'utf8')) as Json;
const group = (file: string, event: string) => {
  const g = ((json(file).hooks as Json)[event] as Json[])[0] as Json;
  return g;
};
/** The command of a Claude Code shaped hook group (Gemini CLI, Qwen Code). */
const grouped = (file: string, event: string) => {
  const g = group(file, event);
  return { command: String((g.hooks as Json[])[0]?.command), matcher: g.matcher as string | undefined };
};
/** The command of one Codex hook table in config.toml. */
const codexHook = (home: string, event: string) => {
  const toml = readFileSync(join(home, '.codex/config.toml'), 'utf8');
  const m = new RegExp(
    `\\[\\[hooks\\.${event}\\.hooks\\]\\]\\ntype = "command"\\ncommand = ("(?:[^"\\\\]|\\\\.)*")`,
  ).exec(toml);
  assert.ok(m?.[1], `config.toml has a ${event} hook`);
  return JSON.parse(m[1]) as string;
};

const CASES: Case[] = [
  {
    client: 'gemini',
    notify: (h) => grouped(join(h, '.gemini/settings.json'), 'Notification'),
    resume: (h) => ({ command: grouped(join(h, '.gemini/settings.json'), 'BeforeAgent').command }),
    notifyInput: {
      session_id: 'c0ffee00-0000-4000-8000-000000000001',
      transcript_path: '',
      hook_event_name: 'Notification',
      timestamp: '2026-12-03T15:00:00.000Z',
      notification_type: 'ToolPermission',
      message: 'Tool Shell requires execution',
      details: { type: 'exec', title: 'Shell', command: 'git push', rootCommand: 'git' },
    },
    resumeInput: { hook_event_name: 'BeforeAgent', prompt: 'yes, push it' },
    why: 'Tool Shell requires execution: git push',
  },
  {
    client: 'qwen',
    notify: (h) => grouped(join(h, '.qwen/settings.json'), 'Notification'),
    // It runs before every model call, tool results' too: setup writes it as an http hook (no process per call).
    resume: (h) => (group(join(h, '.qwen/settings.json'), 'UserPromptSubmit').hooks as Hook[])[0] as Hook,
    notifyInput: {
      session_id: 'q1',
      hook_event_name: 'Notification',
      message: 'Qwen Code needs your permission to use run_shell_command',
      title: 'Permission needed',
      notification_type: 'permission_prompt',
    },
    resumeInput: { session_id: 'q1', hook_event_name: 'UserPromptSubmit', prompt: 'go on' },
    env: { QWEN_CODE_SESSION_ID: 'q1' },
    why: 'Qwen Code needs your permission to use run_shell_command',
  },
  {
    client: 'copilot',
    notify: (h) => {
      const g = group(join(h, '.copilot/hooks/coord.json'), 'Notification');
      return { command: String(g.bash), matcher: g.matcher as string };
    },
    resume: (h) => ({ command: String(group(join(h, '.copilot/hooks/coord.json'), 'UserPromptSubmit').bash) }),
    // The documented notification input names the session `sessionId`; UserPromptSubmit's, `session_id`:
    // both must name the same agent, or the item would never clear.
    notifyInput: {
      sessionId: 'cp-5e55',
      timestamp: 1796310000000,
      hook_event_name: 'Notification',
      message: 'Allow Copilot to run: git push?',
      title: 'Permission needed',
      notification_type: 'permission_prompt',
    },
    resumeInput: {
      hook_event_name: 'UserPromptSubmit',
      session_id: 'cp-5e55',
      timestamp: '2026-12-03T15:00:05.000Z',
      prompt: 'yes',
    },
    why: 'Allow Copilot to run: git push?',
  },
  {
    client: 'codex',
    notify: (h) => ({ command: codexHook(h, 'PermissionRequest') }),
    resume: (h) => ({ command: codexHook(h, 'UserPromptSubmit') }),
    notifyInput: {
      session_id: '019a0000-0000-7000-8000-00000000c0de',
      turn_id: 't1',
      transcript_path: null,
      hook_event_name: 'PermissionRequest',
      model: 'gpt-5.5',
      permission_mode: 'default',
      tool_name: 'Bash',
      tool_input: { command: 'git push origin main' },
    },
    resumeInput: {
      session_id: '019a0000-0000-7000-8000-00000000c0de',
      turn_id: 't2',
      transcript_path: null,
      hook_event_name: 'UserPromptSubmit',
      model: 'gpt-5.5',
      permission_mode: 'default',
      prompt: 'approved',
    },
    why: 'Codex CLI needs your permission to use Bash: git push origin main',
  },
];

describe("each client's own waiting hook, as coord setup wrote it", () => {
  let d: SpawnedDaemon;
  const cwd = tempDir('coord-waiting-cwd-');
  const homes = new Map<string, string>();
  before(async () => {
    d = await spawnDaemon();
    // Setup for every client at once (each its own HOME): the commands the tests run are the ones it wrote.
    await Promise.all(
      CASES.map(async (c) => {
        const home = tempDir(`coord-home-${c.client}-`);
        mkdirSync(join(home, '.config'), { recursive: true });
        const r = await run(
          `'${process.execPath}' '${BIN}' setup ${c.client} --write --state '${d.stateDir}'`,
          {},
          {
            HOME: home,
            XDG_CONFIG_HOME: join(home, '.config'),
            COORD_CODEX_BIN: join(home, 'no-codex'),
          },
        );
        assert.equal(r.code, 0, `${c.client}: ${r.stderr}`);
        homes.set(c.client, home);
      }),
    );
  });
  after(() => d?.stop());

  /** A hook command as the client runs it: `sh -c`, the payload on stdin, coord's variables unset. */
  const run = (command: string, input: Json, env: NodeJS.ProcessEnv = {}) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        'sh',
        ['-c', command],
        {
          cwd,
          env: childEnv({ COORD_AGENT: '', COORD_BOARD: '', COORD_STATE: '', CLAUDE_CODE_SESSION_ID: '', ...env }),
        },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin?.end(JSON.stringify({ cwd, ...input }));
    });
  /** An http hook as Qwen Code sends it: the payload as the body, the headers with its unset variables empty. */
  const post = async (hook: { url: string; headers: Record<string, string> }, input: Json) => {
    const headers = Object.fromEntries(Object.entries(hook.headers).map(([k, v]) => [k, v.replace(/\$\{\w+\}/g, '')]));
    const res = await fetch(hook.url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ cwd, ...input }),
    });
    return { code: res.ok ? 0 : res.status, stdout: (await res.text()) === '{}' ? '' : 'not {}', stderr: '' };
  };
  const waiting = async (): Promise<Item[]> => {
    const res = await d.fetch('/v1/attention?board=default');
    return ((await res.json()) as { items: Item[] }).items.filter((i) => i.kind === 'agent_waiting');
  };

  test('setup installs a notify and a resume hook for Gemini CLI, Qwen Code, Copilot CLI and Codex', () => {
    for (const c of CASES) {
      const home = homes.get(c.client) ?? '';
      assert.match(c.notify(home).command, new RegExp(` hook notify --client ${c.client}\\b`), c.client);
      const resume = c.resume(home);
      const said = 'command' in resume ? resume.command : resume.statusMessage;
      assert.match(said, new RegExp(`[ (]hook resume --client ${c.client}\\b`), c.client);
    }
    // Only the notifications that mean "waiting on you" (not Copilot's shell_completed, Qwen's auth_success).
    assert.equal(CASES[1]?.notify(homes.get('qwen') ?? '').matcher, 'permission_prompt|idle_prompt|elicitation_dialog');
    assert.equal(CASES[2]?.notify(homes.get('copilot') ?? '').matcher, 'permission_prompt|elicitation_dialog');
  });

  test("the client's notification makes its agent waiting in coord attention with the client's words; its next prompt ends it", async () => {
    // As the clients would: all at once, each its own process.
    const told = await Promise.all(
      CASES.map((c) => run(c.notify(homes.get(c.client) ?? '').command, c.notifyInput, c.env)),
    );
    told.forEach((r, i) => {
      const c = CASES[i]?.client;
      assert.equal(r.code, 0, `${c}: ${r.stderr}`);
      // Codex reads a PermissionRequest hook's output as its decision: saying nothing leaves it to the person.
      assert.equal(r.stdout, '', `${c}: the hook says nothing to the client`);
    });
    const out = await run(`'${process.execPath}' '${BIN}' attention --json --state '${d.stateDir}'`, {});
    assert.equal(out.code, 0, out.stderr);
    const items = (JSON.parse(out.stdout) as { items: Item[] }).items.filter((i) => i.kind === 'agent_waiting');
    for (const c of CASES) {
      const item = items.find((i) => i.agent?.startsWith(`${c.client}#`));
      assert.ok(item, `${c.client}'s agent is listed as waiting: ${JSON.stringify(items)}`);
      assert.equal(item.why, c.why);
      assert.match(item.what, /is waiting for you/);
    }
    const resumed = await Promise.all(
      CASES.map((c) => {
        const hook = c.resume(homes.get(c.client) ?? '');
        return 'command' in hook ? run(hook.command, c.resumeInput, c.env) : post(hook, c.resumeInput);
      }),
    );
    resumed.forEach((r, i) => {
      assert.equal(r.code, 0, `${CASES[i]?.client}: ${r.stderr}`);
      assert.equal(r.stdout, '');
    });
    assert.deepEqual(await waiting(), []);
  });
});
