/**
 * `coord top` in a real terminal: tmux runs it in a pane, and the test reads the pane with capture-pane.
 * Every wait is a poll with a generous deadline (no timing assertions).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { testRepo } from '../git/repo.js';
import { COORD, childEnv, ROOT, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
// CI installs tmux (.ci/run); a developer machine without it skips, and says why.
const skip = !hasTmux && !process.env.CI ? 'tmux is not installed (apt-get install -y tmux)' : false;

const PROMPT = 'TOP-TEST$ ';
const DEADLINE = 30_000;

/** Columns a captured line takes: tmux already turned the program's output into cells. */
const cols = (line: string) =>
  [...line].reduce(
    (w, ch) => w + (/[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\uff00-\uff60]/u.test(ch) ? 2 : 1),
    0,
  );

describe('coord top in a terminal (tmux)', { skip }, () => {
  let d: SpawnedDaemon;
  const socket = `coord-top-test-${process.pid}`;
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', env: tmuxEnv }).toString();
  const tmuxEnv = childEnv({ LANG: 'C.UTF-8' });
  const capture = () => tmux('capture-pane', '-p', '-t', 'top');
  const screenLines = () => capture().replace(/\n$/, '').split('\n');
  const shellCommand = (args: string, env = '') =>
    `cd '${ROOT}' && ${env}${COORD.map((a) => `'${a}'`).join(' ')} top --state '${d.stateDir}' --board default ${args}`;
  const post = async (title: string) => {
    const res = await d.fetch('/v1/tasks', { method: 'POST', json: { agent: 'alice', title, board: 'default' } });
    return ((await res.json()) as { task: { id: string } }).task.id;
  };
  const waitForScreen = (what: string, ok: (text: string) => boolean) => waitFor(() => ok(capture()), what, DEADLINE);
  /** The shell prompt is back and the terminal is in its normal state again. */
  async function assertTerminalRestored(): Promise<void> {
    await waitFor(
      () => tmux('display', '-p', '-t', 'top', '#{alternate_on}').trim() === '0',
      'normal screen',
      DEADLINE,
    );
    tmux('send-keys', '-t', 'top', "stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo | tr '\\n' , ; echo", 'Enter');
    await waitForScreen('a sane tty (icanon, echo) and the prompt', (s) => /icanon,echo,\n/.test(s));
    const last = screenLines()
      .filter((l) => l.trim())
      .at(-1);
    assert.equal(last, PROMPT.trimEnd());
    tmux('send-keys', '-t', 'top', 'clear', 'Enter');
  }

  before(async () => {
    assert.ok(hasTmux, 'tmux is not installed: CI must install it (apt-get install -y tmux, before npm test)');
    d = await spawnDaemon();
    tmux('new-session', '-d', '-s', 'top', '-x', '120', '-y', '40', 'bash --norc --noprofile');
    tmux('set-option', '-t', 'top', 'remain-on-exit', 'on');
    // bash sets its own PS1 over the environment's: set ours, then start from a clear screen.
    tmux('send-keys', '-t', 'top', `PS1='${PROMPT}'; clear`, 'Enter');
    await waitForScreen('the shell prompt', (s) => s.includes(PROMPT.trimEnd()));
  });
  after(async () => {
    try {
      tmux('kill-server');
    } catch {
      // already gone
    }
    await d?.stop();
  });

  test('a task posted over HTTP appears; claiming it shows the holder and a lease countdown', async () => {
    const early = await post('posted before top started');
    tmux('send-keys', '-t', 'top', shellCommand(''), 'Enter');
    await waitForScreen(
      'the first frame with the earlier task',
      (s) => s.includes('coord top') && s.includes(`#${early}`),
    );
    await waitForScreen('the stream to be live', (s) => /board default\s+·\s+live/.test(s));

    const id = await post('appears in the terminal');
    await waitForScreen('the new task', (s) => s.includes(`#${id}`) && s.includes('appears in the terminal'));

    const claim = await d.fetch(`/v1/tasks/${id}/claim`, { method: 'POST', json: { agent: 'cursor', lease_s: 300 } });
    assert.equal(claim.status, 200);
    const row = await waitFor(
      () => screenLines().find((l) => l.includes(`#${id}`) && l.includes('cursor') && /\b[45]:\d\d\b/.test(l)),
      'the claimed row with holder and countdown',
      DEADLINE,
    );
    const claimedHeader = screenLines().findIndex((l) => l.includes('CLAIMED 1'));
    const rowAt = screenLines().findIndex((l) => l.includes(`#${id}`));
    assert.ok(claimedHeader >= 0 && rowAt > claimedHeader, 'the task is listed under CLAIMED');
    // The countdown moves (a 1 s tick redraws it).
    const first = /\b([45]:\d\d)\b/.exec(row ?? '')?.[1];
    await waitFor(
      () => screenLines().some((l) => l.includes(`#${id}`) && !l.includes(first ?? '') && /\b[45]:\d\d\b/.test(l)),
      'the countdown to tick',
      DEADLINE,
    );
  });

  test('resized to 80×24 every line fits the width and the frame is whole', async () => {
    tmux('resize-window', '-t', 'top', '-x', '80', '-y', '24');
    await waitFor(
      () => {
        const lines = screenLines();
        return (
          lines.length === 24 &&
          lines[0]?.startsWith('coord top') &&
          lines[1]?.startsWith('┌') &&
          cols(lines[1] ?? '') === 80 &&
          lines[1]?.endsWith('┐') &&
          lines[23]?.includes('q quit')
        );
      },
      'a redraw at 80×24',
      DEADLINE,
    );
    const lines = screenLines();
    for (const line of lines) assert.ok(cols(line) <= 80, `too wide (${cols(line)}): ${line}`);
    assert.ok(
      lines.some((l) => l.includes('appears in the terminal') || l.includes('appears in the termin')),
      'the task is still shown',
    );
  });

  test('enter opens the task; esc closes it', async () => {
    // The first task row is the claimed one.
    tmux('send-keys', '-t', 'top', 'Home', 'Enter');
    await waitForScreen('the detail view', (s) => s.includes('History') && /\d\d:\d\d:\d\d +claimed +cursor/.test(s));
    tmux('send-keys', '-t', 'top', 'Escape');
    await waitForScreen('the board again', (s) => !s.includes('History') && s.includes('q quit'));
  });

  test('q exits and the shell prompt comes back intact', async () => {
    tmux('send-keys', '-t', 'top', 'q');
    await assertTerminalRestored();
  });

  test('SIGTERM also gives the terminal back', async () => {
    tmux('resize-window', '-t', 'top', '-x', '100', '-y', '30');
    tmux('send-keys', '-t', 'top', shellCommand(''), 'Enter');
    await waitForScreen('the first frame', (s) => /board default\s+·\s+live/.test(s));
    const shell = tmux('display', '-p', '-t', 'top', '#{pane_pid}').trim();
    const child = await waitFor(
      () => execFileSync('ps', ['-o', 'pid=', '--ppid', shell], { encoding: 'utf8' }).trim().split(/\s+/)[0],
      'the coord top process',
      DEADLINE,
    );
    process.kill(Number(child), 'SIGTERM');
    await assertTerminalRestored();
  });

  test('NO_COLOR leaves colour out (and colour is there without it)', async () => {
    const colours = () => {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: reading the terminal's escape sequences is the point.
      const sgr = [...tmux('capture-pane', '-p', '-e', '-t', 'top').matchAll(/\u001b\[([0-9;]*)m/g)];
      return sgr
        .flatMap((m) => (m[1] ?? '').split(';').map(Number))
        .filter((n) => (n >= 30 && n <= 38) || (n >= 40 && n <= 48) || (n >= 90 && n <= 107));
    };
    tmux('send-keys', '-t', 'top', shellCommand(''), 'Enter');
    await waitForScreen('the first frame', (s) => /board default\s+·\s+live/.test(s));
    await waitFor(() => colours().length > 0, 'colours by default', DEADLINE);
    tmux('send-keys', '-t', 'top', 'q');
    await assertTerminalRestored();
    tmux('send-keys', '-t', 'top', shellCommand('', 'NO_COLOR=1 '), 'Enter');
    await waitForScreen('the first frame', (s) => /board default\s+·\s+live/.test(s));
    assert.deepEqual(colours(), []);
    tmux('send-keys', '-t', 'top', 'q');
    await assertTerminalRestored();
  });

  test('keys post a task, cancel only after a yes, filter by kind, and switch boards', async () => {
    const task = async (id: string) =>
      ((await (await d.fetch(`/v1/tasks/${id}`)).json()) as { task: { state: string; created_by: string } }).task;
    tmux('send-keys', '-t', 'top', shellCommand('--agent top-user'), 'Enter');
    await waitForScreen('the first frame', (s) => /board default\s+·\s+live/.test(s));

    tmux('send-keys', '-t', 'top', 'n');
    await waitForScreen('the title prompt', (s) => s.includes('new task on default'));
    tmux('send-keys', '-t', 'top', '-l', 'posted with the n key');
    tmux('send-keys', '-t', 'top', 'Enter');
    const posted = (await waitFor(() => /posted #(\w+)/.exec(capture())?.[1], 'the posted message', DEADLINE)) ?? '';
    assert.equal((await task(posted)).created_by, 'top-user');
    await waitForScreen('the new task listed', (s) => s.includes('posted with the n key'));

    // The new task is selected: c asks, anything but y keeps it.
    tmux('send-keys', '-t', 'top', 'c');
    await waitForScreen('the confirmation', (s) => s.includes(`Cancel #${posted}? y = yes`));
    tmux('send-keys', '-t', 'top', 'n');
    await waitForScreen('not cancelled', (s) => s.includes('not cancelled'));
    assert.equal((await task(posted)).state, 'queued');
    tmux('send-keys', '-t', 'top', 'c');
    await waitForScreen('the confirmation', (s) => s.includes(`Cancel #${posted}? y = yes`));
    tmux('send-keys', '-t', 'top', 'y');
    await waitForScreen('cancelled', (s) => s.includes(`cancelled #${posted}`));
    assert.equal((await task(posted)).state, 'cancelled');

    const bug = (await (
      await d.fetch('/v1/tasks', {
        method: 'POST',
        json: { agent: 'alice', title: 'a bug to filter for', kind: 'bug', board: 'default' },
      })
    ).json()) as { task: { id: string } };
    await waitForScreen('the bug', (s) => s.includes('a bug to filter for'));
    tmux('send-keys', '-t', 'top', '/');
    await waitForScreen('the filter prompt', (s) => s.includes('filter: kind:K'));
    tmux('send-keys', '-t', 'top', '-l', 'kind:bug');
    tmux('send-keys', '-t', 'top', 'Enter');
    await waitForScreen(
      'only bugs',
      (s) => s.includes('filter: kind:bug') && s.includes(`#${bug.task.id}`) && !s.includes('appears in the terminal'),
    );
    tmux('send-keys', '-t', 'top', 'Escape');
    await waitForScreen(
      'the filter cleared',
      (s) => !s.includes('filter: kind:bug') && s.includes('appears in the terminal'),
    );

    const elsewhere = (await (
      await d.fetch('/v1/tasks', {
        method: 'POST',
        json: { agent: 'alice', title: 'on the other board', board: 'zz-other' },
      })
    ).json()) as { task: { id: string } };
    // Its event reached the stream (the picker lists boards seen), then pick the last board.
    await waitFor(
      async () => {
        tmux('send-keys', '-t', 'top', 'b');
        await new Promise((r) => setTimeout(r, 200));
        if (capture().includes('zz-other')) return true;
        tmux('send-keys', '-t', 'top', 'Escape');
        return false;
      },
      'the board list with zz-other',
      DEADLINE,
    );
    tmux('send-keys', '-t', 'top', 'Down', 'Down', 'Enter');
    await waitForScreen(
      'the other board',
      (s) =>
        /board zz-other\s+·/.test(s) && s.includes(`#${elsewhere.task.id}`) && !s.includes('appears in the terminal'),
    );
    tmux('send-keys', '-t', 'top', 'q');
    await assertTerminalRestored();
  });

  test('each view key the help line names shows its pane: the plan, the work trees, what needs you', async () => {
    // A work tree with a pending file, known to the board; a goal waiting on a step; an agent waiting on a person.
    const repo = testRepo();
    const tree = repo.worktree('feature-x');
    writeFileSync(join(tree, 'pending-file.ts'), 'export {};\n');
    const tie = await d.fetch(`/v1/changes?board=default&worktree=${encodeURIComponent(tree)}`);
    assert.equal(tie.status, 200, await tie.text());
    const step = await post('the step first');
    const goal = (await (
      await d.fetch('/v1/tasks', {
        method: 'POST',
        json: { agent: 'alice', title: 'the goal on top', board: 'default', blocked_by: [step] },
      })
    ).json()) as { task: { id: string } };
    const waiting = await d.fetch('/v1/attention/waiting', {
      method: 'POST',
      json: { agent: 'claude-7', board: 'default', waiting: 'Claude needs your permission to use Bash' },
    });
    assert.equal(waiting.status, 200, await waiting.text());

    tmux('send-keys', '-t', 'top', shellCommand(''), 'Enter');
    await waitForScreen('the first frame', (s) => /board default\s+·\s+live/.test(s));
    const help = screenLines().at(-1) ?? '';
    const keys = Object.fromEntries([...help.matchAll(/(\d) (tasks|plan|trees|attn)/g)].map((m) => [m[2], m[1]]));
    assert.deepEqual(Object.keys(keys).sort(), ['attn', 'plan', 'tasks', 'trees'], help);
    const pane = (label: string) => (s: string) => s.includes(`─ ${label} `) || s.includes(`┤ ${label} `);

    tmux('send-keys', '-t', 'top', keys.plan ?? '');
    await waitForScreen(
      'the plan: the goal over its step',
      (s) =>
        pane('plan')(s) &&
        new RegExp(`#${goal.task.id} \\[blocked\\] the goal on top`).test(s) &&
        new RegExp(`└─ #${step} \\[ready\\] the step first`).test(s),
    );

    tmux('send-keys', '-t', 'top', keys.trees ?? '');
    await waitForScreen(
      'the work tree, its branch and its pending file',
      (s) =>
        pane('work trees')(s) && /wt-feature-x \[feature-x\] ↑0 ↓0/.test(s) && /1 pending: pending-file\.ts/.test(s),
    );

    tmux('send-keys', '-t', 'top', keys.attn ?? '');
    await waitForScreen(
      'the waiting agent, why, and the command',
      (s) => pane('needs you')(s) && s.includes('claude-7') && s.includes('permission to use Bash') && s.includes('→ '),
    );

    tmux('send-keys', '-t', 'top', keys.tasks ?? '');
    await waitForScreen('the tasks again', (s) => pane('tasks')(s) && s.includes('QUEUED'));
    tmux('send-keys', '-t', 'top', 'q');
    await assertTerminalRestored();
  });

  test('with stdout not a terminal it prints one plain line per event', async () => {
    const [cmd, ...base] = COORD as [string, ...string[]];
    const child = spawn(cmd, [...base, 'top', '--state', d.stateDir, '--board', 'default'], {
      cwd: ROOT,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    try {
      await waitFor(() => out.includes('task.claimed'), 'the recent events', DEADLINE);
      const id = await post('piped along');
      await waitFor(() => out.includes(`#${id}`), 'the live event', DEADLINE);
      const lines = out.trimEnd().split('\n');
      assert.ok(!out.includes('\u001b'), 'no escape sequences');
      for (const line of lines) assert.match(line, /^\s*\d+ {2}\d\d:\d\d:\d\d {2}(task|lock|message)\.\w+/);
      assert.match(lines.find((l) => l.includes(`#${id}`)) ?? '', /task\.created.*alice.*"piped along"/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
