import type { Frame } from './frame.js';

/** The headers of an SSE response (X-Accel-Buffering: proxies such as nginx must not hold events back). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/** One frame as an SSE `message` event (with its event id when the stream is resumable), in pieces. */
export function messageEvent(frame: Frame, eventId?: string): Array<string | Buffer> {
  const head = eventId === undefined ? 'event: message\ndata: ' : `event: message\nid: ${eventId}\ndata: `;
  const pieces = frame.chunks(true);
  if (pieces.length === 1 && typeof pieces[0] === 'string') return [`${head}${pieces[0]}\n\n`];
  return [head, ...pieces, '\n\n'];
}

/** An SSE comment, which clients ignore: keeps an idle stream from being closed by intermediaries. */
export const KEEP_ALIVE = ': keepalive\n\n';
