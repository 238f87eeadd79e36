/**
 * The one reader of Server-Sent Events bodies (text/event-stream) on the client side: `coord events
 * --follow` and the stdio MCP relay's Streamable HTTP answers. Comments (keep-alives) and `retry:` lines
 * are skipped; an event the stream ends in the middle of is dropped, as the SSE standard says.
 */

export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

/** `body`: fetch's ReadableStream or node:http's response (http.ts), both read as async iterables. */
export async function* readSse(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffered = '';
  let id: string | undefined;
  let event = '';
  let data: string[] = [];
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl = buffered.indexOf('\n');
    while (nl >= 0) {
      const line = buffered.slice(0, nl).replace(/\r$/, '');
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf('\n');
      if (line === '') {
        if (data.length > 0) yield { id, event: event || 'message', data: data.join('\n') };
        event = '';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
  }
}
