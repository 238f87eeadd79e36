/**
 * SPEC §10 "one file, one key" with the real clients, set up by `coord setup <client> --write` alone:
 * while another agent holds src/a.ts (and src/café.ts), every other name of those files is refused
 * through the client's own edit tool — a symlink to the file (in the repository and outside any), a path
 * through a symlinked folder, `./`, `..`, `//`, the absolute path, the NFD spelling — and so is a Codex
 * patch that moves a file onto the locked path, moves the locked file away, deletes it, or names it in
 * an indented header. The files stay as they were.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { suiteDaemon } from '../support/suite-daemon.js';
import { CLIENT_NAMES, readyAgent, startAgent, startFake } from './clients.js';
import type { Step } from './fake-model.js';
import { type ClientName, coord, describeRun, makeRepo, tempDir } from './support.js';

const A1 = 'export const a = 1;';
const CAFE = 'export const cafe = 1;';

/** A repository with src/a.ts and src/café.ts, and links to them from inside and outside it. */
function aliasRepo(client: ClientName): { repo: string; outside: string } {
  const repo = makeRepo(`coord-agent-alias-${client}-`);
  writeFileSync(join(repo, 'src', 'caf\u00e9.ts'), `${CAFE}\n`);
  writeFileSync(join(repo, 'src', 'free.ts'), 'export const free = 1;\n');
  symlinkSync(join(repo, 'src', 'a.ts'), join(repo, 'a-link.ts'));
  symlinkSync(join(repo, 'src'), join(repo, 'src-link'));
  const outside = tempDir(`coord-agent-alias-out-${client}-`);
  mkdirSync(outside, { recursive: true });
  symlinkSync(join(repo, 'src', 'a.ts'), join(outside, 'a-link.ts'));
  return { repo, outside };
}

/** Each alias, as the path the model's edit tool is given. */
function aliases(repo: string, outside: string): { label: string; path: string }[] {
  return [
    { label: 'symlink in the repository', path: join(repo, 'a-link.ts') },
    { label: 'symlink outside any repository', path: join(outside, 'a-link.ts') },
    { label: 'through a symlinked folder', path: join(repo, 'src-link', 'a.ts') },
    { label: './ spelling', path: `${repo}/./src/a.ts` },
    { label: '.. spelling', path: `${repo}/src/../src/a.ts` },
    { label: '// spelling', path: `${repo}//src//a.ts` },
    { label: 'absolute path', path: join(repo, 'src', 'a.ts') },
  ];
}

/** The steps that make the model edit each alias with the client's edit tool; the NFD name is written whole. */
function steps(client: ClientName, repo: string, outside: string): { labels: string[]; steps: Step[] } {
  const list = aliases(repo, outside);
  const nfd = join(repo, 'src', 'cafe\u0301.ts');
  if (client === 'claude') {
    return {
      labels: [...list.map((a) => a.label), 'NFD spelling (Write)'],
      steps: [
        ...list.flatMap((a) => [
          { tool: 'Read', args: { file_path: a.path } },
          { tool: 'Edit', args: { file_path: a.path, old_string: A1, new_string: '// clobbered' } },
        ]),
        { tool: 'Write', args: { file_path: nfd, content: '// clobbered\n' } },
      ],
    };
  }
  if (client === 'gemini') {
    return {
      labels: [...list.map((a) => a.label), 'NFD spelling (write_file)'],
      steps: [
        ...list.map((a) => ({
          tool: 'replace',
          args: { file_path: a.path, old_string: A1, new_string: '// clobbered', instruction: 'edit' },
        })),
        { tool: 'write_file', args: { file_path: nfd, content: '// clobbered\n' } },
      ],
    };
  }
  // Codex: apply_patch, with paths as a model writes them (relative to the work tree, or absolute).
  const patch = (...lines: string[]) => ({
    tool: 'apply_patch',
    args: { input: `*** Begin Patch\n${lines.join('\n')}\n*** End Patch\n` },
  });
  const update = (p: string) => [`*** Update File: ${p}`, '@@', `-${A1}`, '+// clobbered'];
  const patches: { label: string; step: Step }[] = [
    ...list.map((a) => ({ label: a.label, step: patch(...update(a.path)) })),
    { label: 'relative ./ and //', step: patch(...update('./src//a.ts')) },
    { label: 'through a symlinked folder, relative', step: patch(...update('src-link/a.ts')) },
    { label: 'NFD spelling (Add File)', step: patch('*** Add File: src/cafe\u0301.ts', '+// clobbered') },
    {
      label: 'move onto the locked path',
      step: patch('*** Update File: src/free.ts', '*** Move to: src/a.ts', '@@', '-export const free = 1;', '+x'),
    },
    {
      label: 'move the locked file away',
      step: patch(...update('src/a.ts').slice(0, 1), '*** Move to: src/gone.ts', '@@', `-${A1}`, '+x'),
    },
    { label: 'delete the locked file', step: patch('*** Delete File: src/a.ts') },
    { label: 'delete, header indented', step: patch('  *** Delete File: src/a.ts') },
  ];
  return { labels: patches.map((p) => p.label), steps: patches.map((p) => p.step) };
}

describe('real clients: every alias of a locked file is refused', () => {
  const daemon = suiteDaemon();

  for (const client of CLIENT_NAMES) {
    it(`${client}: a symlink (inside and outside the repository), a symlinked folder, ./ .. // spellings, the absolute path and the NFD spelling of a locked file are refused${client === 'codex' ? '; so are a move onto it, a move of it, its delete and an indented header' : ''}`, async (t) => {
      const { repo, outside } = aliasRepo(client);
      const agent = await readyAgent(t, client, repo, daemon.stateDir);
      if (!agent) return;
      const held = await coord(
        ['lock', 'src/a.ts', `src/caf\u00e9.ts`, '--agent', 'alice', '--lease', '600', '--json'],
        {
          cwd: repo,
          env: agent.env,
        },
      );
      assert.equal(held.code, 0, describeRun(held));
      const script = steps(client, repo, outside);
      const fake = await startFake(client, [...script.steps, { say: 'done' }]);
      try {
        await startAgent(agent, fake, repo, 'Try each edit.', { timeoutMs: 300_000 }).done;
      } finally {
        await fake.close();
      }
      const writes = new Set(['Edit', 'Write', 'apply_patch', 'replace', 'write_file']);
      const results = fake.results().filter((r) => writes.has(r.tool));
      const told = script.labels.map((label, i) => ({ label, text: results[i]?.text ?? '(no result)' }));
      for (const r of told) t.diagnostic(`${client} · ${r.label}: ${JSON.stringify(r.text.slice(0, 160))}`);
      assert.equal(readFileSync(join(repo, 'src', 'a.ts'), 'utf8'), `${A1}\n`, 'src/a.ts unchanged');
      assert.equal(readFileSync(join(repo, 'src', 'caf\u00e9.ts'), 'utf8'), `${CAFE}\n`, 'src/café.ts unchanged');
      assert.equal(existsSync(join(repo, 'src', 'cafe\u0301.ts')), false, 'no NFD twin written');
      assert.equal(existsSync(join(repo, 'src', 'gone.ts')), false, 'the locked file was not moved away');
      assert.deepEqual(
        told.filter((r) => !/lock_conflict/.test(r.text)).map((r) => `${r.label}: ${r.text.slice(0, 200)}`),
        [],
        'aliases the model was not told lock_conflict about',
      );
    });
  }
});
