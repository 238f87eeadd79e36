/**
 * Requests Node's HTTP parser refuses before fastify sees them — bytes that
 * are not HTTP, a URL or headers over the size limit, a client too slow to
 * send its request — answered in coord's error shape (`{"error": {"code",
 * "message"}}`), not fastify's default `{"error": "Bad Request", …}`.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { CoordError } from '../../core/errors.js';
import { STATUS } from './errors.js';

export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, e] = answerFor(err);
  const body = JSON.stringify({ error: e.toJSON() });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

function answerFor(err: NodeJS.ErrnoException): [number, CoordError] {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    // 431, the status HTTP has for it; the code is coord's own for every size limit.
    return [
      431,
      new CoordError('too_large', 'the request line or headers are too large (the URL is limited to ~16 KiB)'),
    ];
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return [408, new CoordError('invalid_request', 'the request did not arrive in time', { issues: [] })];
  }
  const e = new CoordError('invalid_request', 'the request is not valid HTTP', {
    issues: [{ path: '(request)', message: err.code ?? 'malformed' }],
  });
  return [STATUS[e.code], e];
}
