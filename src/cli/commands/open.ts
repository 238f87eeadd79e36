import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { readToken } from '../../state-dir/token.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';

interface OpenFlags extends CommonFlags {
  browser?: boolean;
  allBoards?: boolean;
}

/** The token rides in the fragment: browsers never send it to a server, and the page removes it at once. */
export const dashboardUrl = (origin: string, token: string, board?: string): string =>
  `${origin}/#token=${encodeURIComponent(token)}${board === undefined ? '' : `&board=${encodeURIComponent(board)}`}`;

/** Best effort: a missing opener (a server, a container) is not an error — the URL is printed anyway. */
function tryOpenBrowser(url: string): boolean {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? null : 'xdg-open';
  if (!opener) return false;
  // xdg-open with no display (ssh, a container, CI) opens nothing, or a text browser inside this terminal.
  if (opener === 'xdg-open' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return false;
  try {
    const child = spawn(opener, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}

export function registerOpen(program: Command): void {
  withCommon(
    program
      .command('open')
      .description('Print the dashboard URL (with its token) and open it in a browser where one exists')
      .option('--no-browser', 'only print the URL')
      .option('--all-boards', 'open on every board, not the board of this repository'),
    { agent: false },
  ).action(
    action(async (flags: OpenFlags) => {
      const inv = resolveInvocation(flags);
      // Fails with exit 3 when no daemon answers: a URL to a dead daemon helps nobody.
      await inv.client.health();
      // The page opens on this repository's board (--board, $COORD_BOARD, the repository; SPEC §9's picker).
      const url = dashboardUrl(inv.client.url, readToken(inv.stateDir), flags.allBoards ? '' : inv.board);
      const opened = flags.browser !== false && tryOpenBrowser(url);
      emit(flags, { url, opened }, () => (opened ? `${url}\n(opening it in your browser)` : url));
    }),
  );
}
