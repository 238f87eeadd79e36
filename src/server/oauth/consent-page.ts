/** The consent page (SPEC §16): who asks, where it sends the browser back, and as whom it will act. */

const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export interface ConsentView {
  client: string;
  redirectHost: string;
  /** As typed on the form, or '' (then the `coord connect` code's, shown only once it is entered). */
  board: string;
  agent: string;
  /** The agent name when neither the form nor the code names one. */
  defaultAgent: string;
  /** The authorization request, carried through the form unchanged and checked again when posted. */
  hidden: Record<string, string>;
  error?: string;
}

/** Served with these headers: no framing (clickjacking), no scripts, nothing cached. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  // Not no-referrer: with it Chromium posts the form with `Origin: null`, which the page must refuse.
  'referrer-policy': 'same-origin',
};

export function consentPage(v: ConsentView): string {
  const hidden = Object.entries(v.hidden)
    .map(([k, val]) => `<input type="hidden" name="${esc(k)}" value="${esc(val)}">`)
    .join('\n      ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>coord · connect ${esc(v.client)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { font: 15px/1.5 system-ui, sans-serif; max-width: 34rem; margin: 3rem auto; padding: 0 1rem; color: #222; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; }
  dt { color: #666; } dd { margin: 0; font-weight: 600; }
  label { display: block; margin-top: .8rem; } input[type=text] { width: 100%; font: inherit; padding: .3rem; }
  .error { color: #b00020; font-weight: 600; } button { font: inherit; margin: 1rem .5rem 0 0; padding: .4rem 1rem; }
</style></head>
<body>
  <h1>Connect <span id="client">${esc(v.client)}</span> to coord?</h1>
  <p>This chat host asks to work on your coord board as an agent: it will see the board's tasks and may
  claim them, lock files, post, and submit results, like any agent you run.</p>
  <dl>
    <dt>client</dt><dd id="client-name">${esc(v.client)}</dd>
    <dt>sends you back to</dt><dd id="redirect-host">${esc(v.redirectHost)}</dd>
    <dt>board</dt><dd id="board-name">${v.board ? esc(v.board) : 'the one your <code>coord connect</code> named (else main)'}</dd>
    <dt>acts as agent</dt><dd id="agent-name">${v.agent ? esc(v.agent) : `the name your <code>coord connect</code> gave (else ${esc(v.defaultAgent)})`}</dd>
  </dl>
  ${v.error ? `<p class="error" id="error" role="alert">${esc(v.error)}</p>` : ''}
  <form method="post" action="">
      ${hidden}
    <label>board <input type="text" name="board" value="${esc(v.board)}" maxlength="64" placeholder="as coord connect named it"></label>
    <label>agent name <input type="text" name="agent" value="${esc(v.agent)}" maxlength="64" placeholder="as coord connect named it"></label>
    <label>one-time code from <code>coord connect</code> (or the dashboard's token)
      <input type="text" name="code" autocomplete="off" autofocus required></label>
    <button type="submit" name="decision" value="approve">Approve</button>
    <button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
  </form>
</body></html>
`;
}

export function errorPage(status: number, error: string, description: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>coord · ${esc(error)}</title></head>
<body style="font: 15px/1.5 system-ui, sans-serif; max-width: 34rem; margin: 3rem auto">
  <h1>This connection cannot go on</h1>
  <p><strong id="error">${esc(error)}</strong> (${status}): <span id="description">${esc(description)}</span></p>
</body></html>
`;
}
