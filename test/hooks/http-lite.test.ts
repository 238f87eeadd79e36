/**
 * The hooks' HTTP/1.1 client over node:net (src/hooks/http-lite.ts), against real sockets that answer byte by
 * byte as an HTTP server may: the request as sent, answers framed by Content-Length, chunked or by the
 * connection's end, a 100 Continue before the answer, and what is not an answer — refused, cut short, not HTTP,
 * never answered.
 */
import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { after, test } from 'node:test';
import { exchange } from '../../src/hooks/http-lite.js';

const servers: Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

/** A TCP server that hands each connection's request bytes (once the head and body are in) to `answer`. */
async function server(answer: (socket: Socket, request: string) => void): Promise<string> {
  const s = createServer((socket) => {
    let got = '';
    socket.on('data', (c) => {
      got += c.toString('latin1');
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(got)?.[1] ?? 0);
      if (got.length >= end + 4 + length) answer(socket, got);
    });
    socket.on('error', () => {});
  });
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

/** Write the parts one by one, each in its own packet as far as Node can tell. */
async function dribble(socket: Socket, parts: string[], close = false): Promise<void> {
  for (const p of parts) {
    socket.write(p);
    await new Promise((r) => setImmediate(r));
  }
  if (close) socket.end();
}

const call = (origin: string, more: Partial<Parameters<typeof exchange>[0]> = {}) =>
  exchange({ method: 'GET', origin, path: '/v1/x', headers: {}, waitMs: 10_000, ...more });

test('a POST carries its method, path, headers and body with Content-Length, and its answer is read by Content-Length', async () => {
  let seen = '';
  const origin = await server((socket, request) => {
    seen = request;
    void dribble(socket, [
      'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-len',
      'gth: 12\r\n\r\n{"ok":',
      'true}\n',
    ]);
  });
  const body = JSON.stringify({ path: 'src/café.ts' });
  const sent = await call(origin, {
    method: 'POST',
    path: '/v1/locks/decide?x=1',
    headers: { authorization: 'Bearer t0k', 'content-type': 'application/json' },
    body,
  });
  assert.deepEqual(sent, { answer: { status: 200, body: '{"ok":true}\n' } });
  const [head = '', payload] = seen.split('\r\n\r\n');
  const lines = head.split('\r\n');
  assert.equal(lines[0], 'POST /v1/locks/decide?x=1 HTTP/1.1');
  assert.ok(lines.includes(`host: ${new URL(origin).host}`), head);
  assert.ok(lines.includes('authorization: Bearer t0k'), head);
  assert.ok(lines.includes(`content-length: ${Buffer.byteLength(body)}`), head);
  assert.equal(Buffer.from(payload ?? '', 'latin1').toString('utf8'), body);
});

test('a chunked answer, split anywhere, is put back together; a 100 Continue before it is skipped', async () => {
  const origin = await server((socket) => {
    void dribble(socket, [
      'HTTP/1.1 100 Continue\r\n\r\n',
      'HTTP/1.1 409 Conflict\r\nTransfer-Encoding: chunked\r\n\r\n',
      '5\r\nlock_',
      '\r\n9;ext=1\r\nconflict ',
      '\r\n3\r\né',
      '!\r\n0\r\n',
      'x-trailer: 1\r\n\r\n',
    ]);
  });
  assert.deepEqual(await call(origin), { answer: { status: 409, body: 'lock_conflict é!' } });
});

test('an answer with neither Content-Length nor chunks is read to the end of the connection', async () => {
  const origin = await server((socket) => void dribble(socket, ['HTTP/1.0 200 OK\r\n\r\nplain ', 'text'], true));
  assert.deepEqual(await call(origin), { answer: { status: 200, body: 'plain text' } });
});

test('a closed port is refused; an answer cut short or not HTTP is an error; no answer is a timeout', async () => {
  const closed = await server(() => {});
  const port = servers.pop() as Server;
  await new Promise((r) => port.close(r));
  assert.deepEqual(await call(closed), { failed: 'refused' });

  const short = await server(
    (socket) => void dribble(socket, ['HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc'], true),
  );
  assert.deepEqual(await call(short), { failed: 'error' });

  const garbled = await server((socket) => void dribble(socket, ['SSH-2.0-OpenSSH_9.6\r\n\r\n'], true));
  assert.deepEqual(await call(garbled), { failed: 'error' });

  const silent = await server(() => {});
  assert.deepEqual(await call(silent, { waitMs: 50 }), { failed: 'timeout' });
});
