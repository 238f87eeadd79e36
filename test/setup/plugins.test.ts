/**
 * coord's plugins (SPEC §17), loaded as their clients load them: the file `coord setup <client> --write`
 * put in the client's plugins folder is imported and its hook called with the client's own call shape,
 * against a real daemon. An edit of a file another agent holds is refused with `lock_conflict` naming the
 * holder, in the client's own way (OpenCode and Kilo: a throw; Cline: `{skip: true, reason}`; Pi:
 * `{block: true, reason}`); an edit of a free file is let through and leaves an auto-lock; a tool that
 * does not write is not checked. Pi's extension also offers coord's core tools from its own `coord mcp`.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { runCoord } from '../hooks/run-hook.js';
import { tempDir } from '../support/ctx.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';

describe("coord's plugins, as their clients load them", () => {
  let daemon: SpawnedDaemon;
  let repo: string;
  before(async () => {
    daemon = await spawnDaemon();
    repo = repoWithWorktrees(0).main;
    const held = await runCoord(
      ['lock', 'src/a.ts', '--agent', 'alice', '--lease', '600', '--state', daemon.stateDir],
      {
        cwd: repo,
      },
    );
    assert.equal(held.code, 0, held.stderr);
  });
  after(async () => {
    await daemon.stop();
  });

  /** Run `coord setup <client> --write` into a fresh HOME and import the plugin file it wrote. */
  async function loaded(client: string, rel: string): Promise<Record<string, unknown>> {
    const home = tempDir(`coord-home-${client}-`);
    mkdirSync(join(home, '.config'), { recursive: true });
    const r = await runCoord(['setup', client, '--write', '--state', daemon.stateDir], {
      cwd: repo,
      env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), CLINE_DIR: '', PI_CODING_AGENT_DIR: '' },
    });
    assert.equal(r.code, 0, r.stderr);
    return (await import(pathToFileURL(join(home, rel)).href)) as Record<string, unknown>;
  }

  const holders = async (path: string): Promise<string[]> => {
    const res = await daemon.fetch('/v1/locks');
    const { locks } = (await res.json()) as { locks: { agent: string; resources: string[] }[] };
    return locks.filter((l) => l.resources.includes(path)).map((l) => l.agent);
  };

  for (const client of ['opencode', 'kilo'] as const) {
    test(`${client}: tool.execute.before throws lock_conflict naming the holder for an edit of a held file, lets a free file's edit through with an auto-lock, and does not check a read; the system prompt carries coord prime's context`, async () => {
      const mod = await loaded(client, `.config/${client}/plugins/coord.js`);
      const plugin = mod.CoordPlugin as (ctx: { directory: string }) => Promise<Record<string, unknown>>;
      const hooks = await plugin({ directory: repo });
      const before = hooks['tool.execute.before'] as (i: { tool: string }, o: { args: unknown }) => Promise<void>;
      await assert.rejects(
        before({ tool: 'edit' }, { args: { filePath: join(repo, 'src/a.ts'), oldString: '1', newString: '2' } }),
        /lock_conflict: src\/a\.ts is held by alice/,
      );
      await before({ tool: 'read' }, { args: { filePath: join(repo, 'src/a.ts') } });
      await before({ tool: 'write' }, { args: { filePath: join(repo, `src/${client}.ts`), content: 'x' } });
      const held = await holders(`src/${client}.ts`);
      assert.equal(held.length, 1);
      assert.match(held[0] ?? '', new RegExp(`^${client}#`));
      const transform = hooks['experimental.chat.system.transform'] as (
        i: { sessionID: string },
        o: { system: string[] },
      ) => Promise<void>;
      const system: string[] = [];
      await transform({ sessionID: 's1' }, { system });
      assert.match(system[0] ?? '', new RegExp(`^coord: you are ${client}#`), 'the system prompt carries coord prime');
    });

    // SPEC §19. The bus events' shapes: OpenCode's packages/opencode/src/permission (Event.Asked = the
    // PermissionRequest {id, sessionID, permission, patterns, metadata, always, tool?}; Event.Replied
    // {sessionID, requestID, reply}) and its question tool's `question.asked` {id, sessionID, questions}.
    test(`${client}: its permission.asked and question.asked events make the agent waiting in coord attention; the reply ends it`, async () => {
      const mod = await loaded(client, `.config/${client}/plugins/coord.js`);
      const plugin = mod.CoordPlugin as (ctx: { directory: string }) => Promise<Record<string, unknown>>;
      const hooks = await plugin({ directory: repo });
      const event = hooks.event as (i: { event: { type: string; properties: unknown } }) => Promise<void>;
      const waiting = async () => {
        const res = await daemon.fetch('/v1/attention');
        const { items } = (await res.json()) as { items: { kind: string; agent?: string; why: string }[] };
        return items.filter((i) => i.kind === 'agent_waiting' && i.agent?.startsWith(`${client}#`));
      };
      const sessionID = 'ses_01';
      await event({ event: { type: 'session.status', properties: { sessionID, status: { type: 'busy' } } } });
      assert.deepEqual(await waiting(), [], 'an event that is not a wait says nothing');
      await event({
        event: {
          type: 'permission.asked',
          properties: {
            id: 'per_01',
            sessionID,
            permission: 'bash',
            patterns: ['git push origin main'],
            metadata: {},
            always: ['git push *'],
            tool: { messageID: 'msg_01', callID: 'call_01' },
          },
        },
      });
      assert.deepEqual(
        (await waiting()).map((i) => i.why),
        ['needs your permission to use bash: git push origin main'],
      );
      await event({
        event: { type: 'permission.replied', properties: { sessionID, requestID: 'per_01', reply: 'once' } },
      });
      assert.deepEqual(await waiting(), []);
      await event({
        event: {
          type: 'question.asked',
          properties: {
            id: 'que_01',
            sessionID,
            questions: [{ question: 'Which database?', header: 'Database', options: [{ label: 'SQLite' }] }],
          },
        },
      });
      assert.deepEqual(
        (await waiting()).map((i) => i.why),
        ['asks you: Which database?'],
      );
      await event({ event: { type: 'question.rejected', properties: { sessionID, requestID: 'que_01' } } });
      assert.deepEqual(await waiting(), []);
    });
  }

  test('cline: hooks.beforeTool skips an editor call on a held file with the reason, and lets other tools run', async () => {
    const mod = await loaded('cline', '.cline/plugins/coord.js');
    const plugin = mod.default as {
      name: string;
      manifest: { capabilities: string[] };
      hooks: {
        beforeTool(ctx: unknown): Promise<{ skip: boolean; reason: string } | undefined>;
        beforeRun(ctx: unknown): Promise<{ appendContext: string } | undefined>;
      };
    };
    assert.deepEqual(plugin.manifest.capabilities, ['hooks']);
    const skipped = await plugin.hooks.beforeTool({
      toolCall: { toolName: 'editor' },
      input: { path: join(repo, 'src/a.ts'), old_text: '1', new_text: '2' },
    });
    assert.equal(skipped?.skip, true);
    assert.match(skipped?.reason ?? '', /^lock_conflict: src\/a\.ts is held by alice/);
    assert.equal(await plugin.hooks.beforeTool({ toolCall: { toolName: 'read_files' }, input: {} }), undefined);
    const cwd = process.cwd();
    process.chdir(repo);
    const primed = await plugin.hooks
      .beforeRun({ snapshot: { conversationId: 'c1' } })
      .finally(() => process.chdir(cwd));
    assert.match(primed?.appendContext ?? '', /^coord: you are cline#/);
  });

  // SPEC §19. Cline 3.0.65's ask_question tool: input {question, options} (@cline/core's `ask_question`
  // definition); it runs the host's askQuestion callback, which waits for the user's answer.
  test('cline: its ask_question tool makes the agent waiting in coord attention until the tool has run', async () => {
    const mod = await loaded('cline', '.cline/plugins/coord.js');
    const hooks = (mod.default as { hooks: Record<string, (ctx: unknown) => Promise<unknown>> }).hooks;
    const waiting = async () => {
      const res = await daemon.fetch('/v1/attention');
      const { items } = (await res.json()) as { items: { kind: string; agent?: string; why: string }[] };
      return items.filter((i) => i.kind === 'agent_waiting' && i.agent?.startsWith('cline#')).map((i) => i.why);
    };
    const call = {
      toolCall: { toolName: 'ask_question', toolCallId: 'tc1' },
      input: { question: 'Keep the old API?', options: ['yes', 'no'] },
    };
    assert.equal(await hooks.beforeTool?.(call), undefined, 'the question is asked');
    assert.deepEqual(await waiting(), ['asks you: Keep the old API?']);
    assert.equal(await hooks.afterTool?.(call), undefined);
    assert.deepEqual(await waiting(), []);
  });

  test("pi: the extension offers coord mcp's core tools (a call returns coord's text) and blocks an edit of a held file from tool_call", async () => {
    const mod = await loaded('pi', '.pi/agent/extensions/coord.ts');
    const factory = mod.default as (pi: unknown) => Promise<void>;
    const tools = new Map<string, { execute(id: string, p: unknown): Promise<{ content: { text: string }[] }> }>();
    const handlers = new Map<string, unknown>();
    // Pi runs in the work tree, and so does the coord mcp its extension starts.
    const cwd = process.cwd();
    process.chdir(repo);
    await factory({
      registerTool: (t: { name: string }) => tools.set(t.name, t as never),
      on: (event: string, h: unknown) => handlers.set(event, h),
    }).finally(() => process.chdir(cwd));
    try {
      assert.ok(tools.has('coord_claim_task'), [...tools.keys()].join(' '));
      assert.ok(tools.has('coord_inbox'));
      const who = await tools.get('coord_who')?.execute('1', {});
      assert.match(who?.content[0]?.text ?? '', /alice/);
      const onCall = handlers.get('tool_call') as (e: unknown, ctx: unknown) => Promise<{ reason: string } | undefined>;
      const blocked = await onCall(
        { toolName: 'edit', input: { path: join(repo, 'src/a.ts'), edits: [] } },
        { cwd: repo },
      );
      assert.match(blocked?.reason ?? '', /^lock_conflict: src\/a\.ts is held by alice/);
      assert.equal(
        await onCall({ toolName: 'read', input: { path: join(repo, 'src/a.ts') } }, { cwd: repo }),
        undefined,
      );
      const start = handlers.get('before_agent_start') as (e: unknown, ctx: unknown) => Promise<unknown>;
      const primed = (await start({}, { cwd: repo })) as { message?: { content: string } } | undefined;
      assert.match(primed?.message?.content ?? '', /^coord: you are pi#/);
      assert.equal(await start({}, { cwd: repo }), undefined, 'primed once per session');
    } finally {
      await (handlers.get('session_shutdown') as () => void)?.();
    }
  });
});
