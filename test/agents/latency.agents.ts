/**
 * What the pre-edit hook costs per edit, as the client sees it: the time from the model asking for an
 * edit to the client sending the result back, with coord's hooks and without them (the same HOME with
 * the hooks taken out of the client's config — for this measurement only). Reported, never asserted:
 * tests hold no timing thresholds.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../support/daemon.js';
import { suiteDaemon } from '../support/suite-daemon.js';
import { median } from '../support/timing.js';
import {
  type Agent,
  CLIENT_NAMES,
  editResult,
  editSteps,
  hooksWritten,
  setUpAgent,
  startAgent,
  startFake,
} from './clients.js';
import type { Step } from './fake-model.js';
import { cleanEnv, describeRun, makeRepo, tempDir } from './support.js';

/** Edits per client and side: 5 in `test:agents`; `npm run bench:agents` asks for 20 (COORD_LATENCY_EDITS). */
const EDITS = Math.max(1, Number(process.env.COORD_LATENCY_EDITS) || 5);

/** Whether bin/coord.js runs the compiled dist/ (it falls back to tsx when a file under src/ is newer). */
function distFresh(): boolean {
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce(
      (m, e) => Math.max(m, e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs),
      0,
    );
  const dist = join(ROOT, 'dist', 'main.js');
  return existsSync(dist) && statSync(dist).mtimeMs >= newest(join(ROOT, 'src'));
}

/** The same client without coord's hooks: a copy of its HOME with the hook entries removed. */
function withoutHooks(agent: Agent, stateDir: string): Agent {
  const home = tempDir(`coord-agent-nohooks-${agent.client}-`);
  cpSync(agent.home, home, { recursive: true });
  const json = (p: string) => {
    const doc = JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
    delete doc.hooks;
    writeFileSync(p, JSON.stringify(doc, null, 2));
  };
  if (agent.client === 'claude') json(join(home, '.claude', 'settings.json'));
  if (agent.client === 'gemini') json(join(home, '.gemini', 'settings.json'));
  if (agent.client === 'codex') {
    const p = join(home, '.codex', 'config.toml');
    const sections = readFileSync(p, 'utf8').split(/^(?=\[)/m);
    writeFileSync(p, sections.filter((s) => !/^\[\[?\s*hooks\b/.test(s)).join(''));
  }
  return { ...agent, home, env: cleanEnv(home, { COORD_STATE: stateDir }) };
}

/** A native hook's own time in Claude Code's debug log: from "mcp_tool calling <server/tool>" to the hook's result line. */
function nativeHookTimes(text: string, tool: string): number[] {
  const log = text.split('\n');
  const at = (l: string) => Date.parse(l.slice(0, 24));
  const out: number[] = [];
  log.forEach((l, i) => {
    if (!l.includes(`mcp_tool calling ${tool}`)) return;
    const done = log.slice(i + 1).find((x) => /Hook PreToolUse:Edit \(PreToolUse\) (success|error)/.test(x));
    if (done) out.push(at(done) - at(l));
  });
  return out;
}

/**
 * Claude Code with one native hook that does nothing: an `mcp_tool` PreToolUse hook on its edit tools calling a
 * dependency-free stdio MCP server that answers at once (noop-mcp-server.mjs) — what any native hook costs in
 * Claude Code itself, the floor under coord's.
 */
function withNoopNativeHook(agent: Agent, stateDir: string): Agent {
  const bare = withoutHooks(agent, stateDir);
  const settings = join(bare.home, '.claude', 'settings.json');
  const doc = JSON.parse(readFileSync(settings, 'utf8')) as Record<string, unknown>;
  doc.hooks = {
    PreToolUse: [
      {
        matcher: 'Edit|Write|MultiEdit|NotebookEdit',
        hooks: [{ type: 'mcp_tool', server: 'noop', tool: 'noop', input: {}, timeout: 30 }],
      },
    ],
  };
  const permissions = (doc.permissions ?? {}) as { allow?: string[] };
  doc.permissions = { ...permissions, allow: [...(permissions.allow ?? []), 'mcp__noop'] };
  writeFileSync(settings, JSON.stringify(doc, null, 2));
  const user = join(bare.home, '.claude.json');
  const config = JSON.parse(readFileSync(user, 'utf8')) as { mcpServers?: Record<string, unknown> };
  config.mcpServers = {
    ...config.mcpServers,
    noop: { type: 'stdio', command: process.execPath, args: [join(ROOT, 'test/agents/noop-mcp-server.mjs')] },
  };
  writeFileSync(user, JSON.stringify(config, null, 2));
  return bare;
}

function steps(agent: Agent, repo: string): Step[] {
  const out: Step[] = [];
  for (let i = 1; i <= EDITS; i++) {
    const s = editSteps(agent.client, repo, 'src/b.ts', `export const b = ${i};`, `export const b = ${i + 1};`);
    out.push(...(i === 1 ? s : s.filter((x) => !('tool' in x) || x.tool !== 'Read')));
  }
  return [...out, { say: 'done' }];
}

describe('the pre-edit hook, timed as the client sees it', () => {
  const daemon = suiteDaemon();

  for (const client of CLIENT_NAMES) {
    it(`${client}: ${EDITS} edits of a free file with and without coord's hooks (median reported)`, async (t) => {
      const repo = makeRepo(`coord-agent-latency-${client}-`);
      const agent = await setUpAgent(client, repo, daemon.stateDir);
      if (agent.setup.code !== 0 || !hooksWritten(agent)) {
        t.skip(`coord setup ${client} --write gives it no pre-edit hook yet`);
        return;
      }
      const tool = client === 'claude' ? 'Edit' : client === 'codex' ? 'apply_patch' : 'replace';
      // Claude Code times each hook itself, in its debug log ("PreToolUse:Edit [...] finished with status 0 (199ms)").
      const debugLog = join(tempDir('coord-agent-debug-'), 'claude.log');
      const noopLog = join(tempDir('coord-agent-debug-'), 'claude-noop.log');
      const time = async (a: Agent, label: string) => {
        const fake = await startFake(client, steps(a, repo));
        try {
          const log = label === 'with hooks' ? debugLog : label === 'with a no-op native hook' ? noopLog : null;
          const debug = client === 'claude' && log ? { extraArgs: ['--debug-file', log] } : {};
          const run = await startAgent(a, fake, repo, 'Bump b again and again.', debug).done;
          assert.equal(run.code, 0, describeRun(run));
          assert.ok(!/lock_conflict/.test(editResult(client, fake)?.text ?? ''), `${label}: an edit was refused`);
          return fake.toolMs(tool);
        } finally {
          await fake.close();
        }
      };
      const hooked = await time(agent, 'with hooks');
      writeFileSync(join(repo, 'src/b.ts'), 'export const b = 1;\n');
      const bare = await time(withoutHooks(agent, daemon.stateDir), 'without hooks');
      assert.equal(hooked.length, EDITS, `timed every edit: ${hooked}`);
      assert.equal(bare.length, EDITS, `timed every edit: ${bare}`);
      if (client === 'claude') {
        writeFileSync(join(repo, 'src/b.ts'), 'export const b = 1;\n');
        const noop = await time(withNoopNativeHook(agent, daemon.stateDir), 'with a no-op native hook');
        assert.equal(noop.length, EDITS, `timed every edit: ${noop}`);
        const noopOwn = nativeHookTimes(readFileSync(noopLog, 'utf8'), 'noop/noop');
        t.diagnostic(
          `claude: a no-op native hook's own time as Claude Code logs it: median ${median(noopOwn.slice(1))} ms [${noopOwn.join(', ')}]`,
        );
        t.diagnostic(
          `claude Edit: median ${median(noop)} ms with a no-op native hook (an mcp_tool hook of a server that answers at once) [${noop.join(', ')}] → Claude Code's own cost of any native hook: ${median(noop) - median(bare)} ms per edit; coord's hook adds ${median(hooked) - median(noop)} ms over it`,
        );
      }
      if (client === 'claude') {
        // Claude Code's debug log times a command hook itself ("… finished with status 0 (199ms)"); for the native
        // mcp_tool hook, from "mcp_tool calling coord/decide_edit" to the hook's "success" line after it.
        const log = readFileSync(debugLog, 'utf8').split('\n');
        const own = log.flatMap((l) => {
          const m = /PreToolUse:Edit \[[^\]]*hook pre-edit[^\]]*\] finished with status \d+ \((\d+)ms\)/.exec(l);
          return m ? [Number(m[1])] : [];
        });
        own.push(...nativeHookTimes(log.join('\n'), 'coord/decide_edit'));
        t.diagnostic(
          `claude: the pre-edit hook's own time as Claude Code logs it: median ${median(own.slice(1))} ms after the first edit (which takes the lock) [${own.join(', ')}]`,
        );
      }
      t.diagnostic(
        `${client} ${tool}: median ${median(hooked)} ms with coord's hooks [${hooked.join(', ')}], ${median(bare)} ms without [${bare.join(', ')}] → the hook adds ${median(hooked) - median(bare)} ms per edit, ratio ${(median(hooked) / Math.max(1, median(bare))).toFixed(2)}× (load average ${loadavg()[0]?.toFixed(1)}; coord runs ${distFresh() ? 'dist/' : 'src/ through tsx'})`,
      );
    });
  }
});
