/**
 * The checks coord's plugins run besides the pre-edit block (SPEC §10, §17), loaded as their clients load
 * them (the file `coord setup <client> --write` wrote) and called with the client's own call shapes,
 * against a real daemon and a real git work tree:
 * - shell edits: around the client's shell tool, a command that changed a file another agent holds is
 *   told to the model (OpenCode/Kilo: at the end of the command's output; Cline: `appendContext`; Pi: added
 *   to the tool's result), and a free file it changed is auto-locked for the plugin's agent;
 * - the stop check: a message for the agent that it never saw keeps it going once (OpenCode/Kilo: a prompt
 *   queued when the model's text is complete; Pi: a follow-up at the end of a turn without tools), and the
 *   same message never twice;
 * - the hooks run inside the client's process (no `coord hook` process per call), and with no daemon
 *   running an edit is let through.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { identify } from '../../src/client/agent-identity.js';
import { runCoord } from '../hooks/run-hook.js';
import { tempDir } from '../support/ctx.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';

type Client = 'opencode' | 'kilo' | 'cline' | 'pi';
const FILE: Record<Client, string> = {
  opencode: '.config/opencode/plugins/coord.js',
  kilo: '.config/kilo/plugins/coord.js',
  cline: '.cline/plugins/coord.js',
  pi: '.pi/agent/extensions/coord.ts',
};

describe("coord's plugins: shell edits, the stop check, in process", () => {
  let daemon: SpawnedDaemon;
  before(async () => {
    daemon = await spawnDaemon();
  });
  after(async () => {
    await daemon.stop();
  });

  /** A fresh repository with src/a.ts held by alice, and the plugin file setup wrote for it. */
  async function setUp(client: Client, stateDir = daemon.stateDir) {
    const repo = repoWithWorktrees(0).main;
    const cli = (args: string[]) => runCoord([...args, '--state', stateDir], { cwd: repo });
    if (stateDir === daemon.stateDir) {
      const held = await cli(['lock', 'src/a.ts', '--agent', 'alice', '--lease', '600']);
      assert.equal(held.code, 0, held.stderr);
    }
    const home = tempDir(`coord-home-${client}-`);
    mkdirSync(join(home, '.config'), { recursive: true });
    const r = await runCoord(['setup', client, '--write', '--state', stateDir], {
      cwd: repo,
      env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), CLINE_DIR: '', PI_CODING_AGENT_DIR: '' },
    });
    assert.equal(r.code, 0, r.stderr);
    const mod = (await import(pathToFileURL(join(home, FILE[client])).href)) as Record<string, unknown>;
    return { repo, cli, mod };
  }

  const holders = async (path: string): Promise<string[]> => {
    const res = await daemon.fetch('/v1/locks');
    const { locks } = (await res.json()) as { locks: { agent: string; resources: string[]; hold?: boolean }[] };
    return locks.filter((l) => l.resources.includes(path) && !l.hold).map((l) => l.agent);
  };

  /** What a shell command does here: changes the held file and writes a new one. */
  const command = (repo: string, client: string) => {
    writeFileSync(join(repo, 'src/a.ts'), `// ${client} was here\n`);
    writeFileSync(join(repo, `src/${client}-gen.ts`), 'export {};\n');
  };

  for (const client of ['opencode', 'kilo'] as const) {
    test(`${client}: a bash command that changed a held file ends its output with lock_conflict naming the holder, and the free file it wrote is auto-locked for the plugin's agent`, async () => {
      const { repo, mod } = await setUp(client);
      const hooks = await (mod.CoordPlugin as (ctx: { directory: string }) => Promise<Record<string, unknown>>)({
        directory: repo,
      });
      const beforeTool = hooks['tool.execute.before'] as (i: unknown, o: { args: unknown }) => Promise<void>;
      const afterTool = hooks['tool.execute.after'] as (i: unknown, o: { output: string }) => Promise<void>;
      const call = { tool: 'bash', sessionID: 's1', callID: 'c1', args: { command: 'gen' } };
      await beforeTool(call, { args: call.args });
      command(repo, client);
      const output = { output: 'generated' };
      await afterTool(call, output);
      assert.match(output.output, /^generated\n\n.*src\/a\.ts.*alice/s);
      const held = await holders(`src/${client}-gen.ts`);
      assert.deepEqual(held, [identify(client, {}, { client: process.pid })?.agent]);
    });

    test(`${client}: when the model's text is complete and a message it never saw is waiting, the session is prompted with it once; the next time it is not held`, async () => {
      const { repo, cli, mod } = await setUp(client);
      const prompts: { id: string; text: string }[] = [];
      const hooks = await (
        mod.CoordPlugin as (
          ctx: unknown,
        ) => Promise<{ 'experimental.text.complete': (i: unknown, o: { text: string }) => Promise<void> }>
      )({
        directory: repo,
        client: {
          session: {
            promptAsync: async (o: { path: { id: string }; body: { parts: { text: string }[] } }) => {
              prompts.push({ id: o.path.id, text: o.body.parts[0]?.text ?? '' });
            },
          },
        },
      });
      const agent = identify(client, {}, { client: process.pid })?.agent ?? '';
      const sent = await cli(['send', agent, 'the parser is yours now', '--agent', 'bob']);
      assert.equal(sent.code, 0, sent.stderr);
      const done = () =>
        hooks['experimental.text.complete']({ sessionID: 'ses_1', messageID: 'm', partID: 'p' }, { text: 'done' });
      await done();
      assert.equal(prompts.length, 1);
      assert.equal(prompts[0]?.id, 'ses_1');
      assert.match(prompts[0]?.text ?? '', /from bob.*the parser is yours now/s);
      await done();
      assert.equal(prompts.length, 1, 'held once');
    });
  }

  test("cline: run_commands that changed a held file appends lock_conflict naming the holder to the model's context, and the free file it wrote is auto-locked", async () => {
    const { repo, mod } = await setUp('cline');
    const plugin = mod.default as {
      hooks: {
        beforeTool(ctx: unknown): Promise<unknown>;
        afterTool(ctx: unknown): Promise<{ appendContext: string } | undefined>;
      };
    };
    const cwd = process.cwd();
    process.chdir(repo);
    try {
      const ctx = { toolCall: { toolName: 'run_commands', toolCallId: 't1' }, input: { commands: ['gen'] } };
      assert.equal(await plugin.hooks.beforeTool(ctx), undefined);
      command(repo, 'cline');
      const said = await plugin.hooks.afterTool(ctx);
      assert.match(said?.appendContext ?? '', /src\/a\.ts.*alice/s);
    } finally {
      process.chdir(cwd);
    }
    // The sandbox's parent is the client: here, this process's parent.
    assert.deepEqual(await holders('src/cline-gen.ts'), [identify('cline', {}, { pid: process.pid })?.agent]);
  });

  test('pi: a bash command that changed a held file gets lock_conflict naming the holder added to its result, the free file is auto-locked; at the end of a turn without tools a message it never saw is sent as a follow-up that starts one more turn, once', async () => {
    const { repo, cli, mod } = await setUp('pi');
    const handlers = new Map<string, (e: unknown, ctx: unknown) => Promise<unknown>>();
    const sent: { message: { content: string }; options?: { triggerTurn?: boolean } }[] = [];
    const cwd = process.cwd();
    process.chdir(repo);
    await (mod.default as (pi: unknown) => Promise<void>)({
      registerTool: () => {},
      on: (event: string, h: (e: unknown, ctx: unknown) => Promise<unknown>) => handlers.set(event, h),
      sendMessage: (message: { content: string }, options?: { triggerTurn?: boolean }) =>
        sent.push({ message, ...(options ? { options } : {}) }),
    }).finally(() => process.chdir(cwd));
    try {
      const call = { toolName: 'bash', toolCallId: 'b1', input: { command: 'gen' } };
      assert.equal(await handlers.get('tool_call')?.(call, { cwd: repo }), undefined);
      command(repo, 'pi');
      const result = (await handlers.get('tool_result')?.(
        { ...call, content: [{ type: 'text', text: 'generated' }] },
        { cwd: repo },
      )) as { content: { text: string }[] } | undefined;
      assert.equal(result?.content[0]?.text, 'generated');
      assert.match(result?.content[1]?.text ?? '', /src\/a\.ts.*alice/s);
      const agent = identify('pi', {}, { client: process.pid })?.agent ?? '';
      assert.deepEqual(await holders('src/pi-gen.ts'), [agent]);

      const message = await cli(['send', agent, 'review #12 before you go', '--agent', 'bob']);
      assert.equal(message.code, 0, message.stderr);
      // A turn that called a tool is not the end.
      await handlers.get('turn_end')?.({ toolResults: [{}] }, { cwd: repo });
      assert.equal(sent.length, 0);
      await handlers.get('turn_end')?.({ toolResults: [] }, { cwd: repo });
      assert.equal(sent.length, 1);
      assert.match(sent[0]?.message.content ?? '', /from bob.*review #12 before you go/s);
      assert.deepEqual(sent[0]?.options, { deliverAs: 'followUp', triggerTurn: true });
      await handlers.get('turn_end')?.({ toolResults: [] }, { cwd: repo });
      assert.equal(sent.length, 1, 'held once');
    } finally {
      await (handlers.get('session_shutdown') as () => Promise<void>)?.();
    }
  });

  test('the hooks load into the plugin’s own process (no coord hook process per edit); with no daemon running, an edit is let through', async () => {
    const { inProcessHooks } = await import('../../src/plugins/hook-call.js');
    assert.equal(typeof (await inProcessHooks()), 'function');
    const { repo, mod } = await setUp('opencode', tempDir('coord-no-daemon-'));
    const hooks = await (mod.CoordPlugin as (ctx: { directory: string }) => Promise<Record<string, unknown>>)({
      directory: repo,
    });
    const beforeTool = hooks['tool.execute.before'] as (i: unknown, o: { args: unknown }) => Promise<void>;
    await beforeTool({ tool: 'edit' }, { args: { filePath: join(repo, 'src/a.ts'), oldString: '1', newString: '2' } });
  });
});

test("each plugin sees exactly the edit and shell tools of its client's profile (one list: Cline's shell tools had drifted)", async () => {
  const { profileOf } = await import('../../src/clients/index.js');
  const plugins = {
    opencode: await import('../../src/plugins/opencode.js'),
    kilo: await import('../../src/plugins/opencode.js'),
    cline: await import('../../src/plugins/cline.js'),
    pi: await import('../../src/plugins/pi.js'),
  };
  for (const [kind, plugin] of Object.entries(plugins)) {
    const tools = profileOf(kind as keyof typeof plugins).tools;
    assert.deepEqual([...plugin.EDIT_TOOLS], [...tools.edit], `${kind}: edit tools`);
    assert.deepEqual([...plugin.SHELL_TOOLS], [...tools.shell], `${kind}: shell tools`);
  }
});
