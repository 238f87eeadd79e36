/**
 * The scripted model behind scripts/run-demo.sh: the repository's fake Anthropic server (test/agents/), with
 * one script per task of the plan in `$1` (coord plan --json): write the task's file, commit it with git, submit.
 * Prints its URL, then serves until killed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeAnthropic } from '../test/agents/fake-anthropic.js';
import type { Step } from '../test/agents/fake-model.js';

const [planOut = '', worktrees = ''] = process.argv.slice(2);
const { tasks } = JSON.parse(readFileSync(planOut, 'utf8')) as { tasks: Record<string, { id: string }> };
const scripts: Record<string, Step[]> = {};
for (const [ref, t] of Object.entries(tasks)) {
  scripts[t.id] = [
    {
      tool: 'Write',
      args: { file_path: join(worktrees, t.id, 'src', `${ref}.ts`), content: `export const ${ref} = true;\n` },
    },
    {
      tool: 'Bash',
      args: { command: `git add -A && git commit -q -m "${ref}: add src/${ref}.ts"`, description: 'commit' },
    },
    {
      tool: 'mcp__coord__submit_result',
      args: { task_id: t.id, status: 'completed', result: { summary: `src/${ref}.ts` } },
    },
    { say: `#${t.id} done` },
  ];
}
const fake = await startFakeAnthropic([]);
fake.scriptBy((raw) => /coord task #([A-Za-z0-9_-]+)/.exec(raw)?.[1] ?? null, scripts);
process.stdout.write(`${fake.url}\n`);
