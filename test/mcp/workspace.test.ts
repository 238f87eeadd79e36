/**
 * SPEC §5: where the agent works is learnt from the client when `coord mcp` could only guess it from its
 * working directory — Codex's per-call `_meta["x-codex-turn-metadata"].workspaces`, then MCP roots.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { buildMcpServer } from '../../src/server/mcp/server.js';
import { McpSession } from '../../src/server/mcp/session.js';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { harness, makeSqliteStore } from '../support/ctx.js';
import { waitFor } from '../support/wait-for.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';

async function connect(workspace: 'cwd' | 'given', roots?: string) {
  const h = await harness(makeSqliteStore);
  const session = new McpSession({ agent: 'a', board: 'guessed-board', root: '/guessed', id: randomUUID(), workspace });
  const server = buildMcpServer({ ctx: h.ctx, session, version: 'test' });
  const client = new Client({ name: 'codex-mcp-client', version: '1' }, { capabilities: roots ? { roots: {} } : {} });
  if (roots) client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: pathToFileURL(roots).href }] }));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  await client.connect(a);
  return { session, client };
}

test("Codex's per-call workspaces replace a board and root guessed from the working directory", async () => {
  const repo = repoWithWorktrees(1);
  const tree = repo.linked[0] ?? '';
  const { session, client } = await connect('cwd');
  const res = (await client.callTool({
    name: 'lock_files',
    arguments: { files: [join(tree, 'src', 'a.ts')] },
    _meta: { 'x-codex-turn-metadata': { session_id: 's', workspaces: [tree] } },
  })) as any;
  assert.equal(res.isError, undefined, res.content?.[0]?.text);
  assert.equal(session.board, boardForDir(repo.main));
  assert.equal(session.root, tree);
  assert.deepEqual(res._meta['coord/data'].resources, ['src/a.ts']);
});

test('MCP roots replace a guessed workspace, but never a board that was given', async () => {
  const repo = repoWithWorktrees(0);
  const guessed = await connect('cwd', repo.main);
  await waitFor(() => guessed.session.board === boardForDir(repo.main), 'the board from the client’s roots');
  assert.equal(guessed.session.root, repo.main);
  const given = await connect('given', repo.main);
  await given.client.callTool({ name: 'who', arguments: {} });
  assert.equal(given.session.board, 'guessed-board');
});
