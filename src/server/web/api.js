// Talking to the daemon: the token goes in the Authorization header, never in a URL.

const TOKEN_KEY = 'coord-token';
/** The board picked (empty: every board), kept for this tab. */
export const BOARD_KEY = 'coord-board';

/** Takes `#token=…` from the address bar into sessionStorage and removes it from the URL and history. */
export function takeToken() {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  // `coord open` names the board of the repository it ran in (empty: every board): the page opens on it.
  const board = /(?:^#|&)board=([^&]*)/.exec(location.hash);
  if (board) sessionStorage.setItem(BOARD_KEY, decodeURIComponent(board[1] ?? ''));
  if (match?.[1]) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function failure(res) {
  const body = await res.json().catch(() => null);
  return new ApiError(
    res.status,
    body?.error?.code ?? `http_${res.status}`,
    body?.error?.message ?? `HTTP ${res.status}`,
  );
}

export function makeApi(token) {
  const headers = (extra) => ({ authorization: `Bearer ${token}`, ...extra });
  async function call(method, path, body) {
    const res = await fetch(path, {
      method,
      cache: 'no-store',
      headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw await failure(res);
    return res.status === 204 ? null : res.json();
  }

  /**
   * Reads /v1/events with fetch (EventSource cannot send an Authorization header).
   * Calls onOpen once subscribed, onEvents for each chunk's events; resolves when the stream ends.
   */
  async function stream({ since, signal, onOpen, onEvents }) {
    const extra = { accept: 'text/event-stream' };
    if (since > 0) extra['last-event-id'] = String(since);
    const res = await fetch('/v1/events', { headers: headers(extra), cache: 'no-store', signal });
    if (!res.ok || !res.body) throw await failure(res);
    onOpen();
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    let data = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += value;
      const batch = [];
      let nl = buffered.indexOf('\n');
      while (nl >= 0) {
        const line = buffered.slice(0, nl).replace(/\r$/, '');
        buffered = buffered.slice(nl + 1);
        nl = buffered.indexOf('\n');
        if (line === '') {
          if (data.length > 0) batch.push(JSON.parse(data.join('\n')));
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(5).replace(/^ /, ''));
        }
      }
      if (batch.length > 0) onEvents(batch);
    }
  }

  return {
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body ?? {}),
    stream,
  };
}

export const query = (params) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const text = q.toString();
  return text ? `?${text}` : '';
};
