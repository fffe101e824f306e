// Server-sent events read off a fetch Response body, one at a time, for tests that drive Streamable HTTP by hand (a
// JSON body, which Streamable HTTP allows in place of a stream, reads as one event).

export interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<string>;
  private buffer = '';

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next event (keep-alive comments skipped), or undefined when the stream ended. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const event = parseEvent(block);
        if (event) return event;
        continue;
      }
      const { value, done } = await this.reader.read();
      if (done) {
        // A POST may be answered with one JSON body instead of a stream (Streamable HTTP allows both): its message.
        const rest = this.buffer.trim();
        this.buffer = '';
        return rest.startsWith('{') || rest.startsWith('[') ? { data: rest } : undefined;
      }
      this.buffer += value;
    }
  }

  /** The next JSON-RPC message that satisfies `wanted`, or a failure naming what came instead. */
  async message(wanted: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    const seen: string[] = [];
    for (let event = await this.next(); event; event = await this.next()) {
      seen.push(event.data.slice(0, 200));
      if (!event.data) continue;
      const message = JSON.parse(event.data) as Record<string, unknown>;
      if (wanted(message)) return message;
    }
    throw new Error(`the stream ended without the message wanted; it carried: ${JSON.stringify(seen)}`);
  }

  /** The response to request `id`. */
  response(id: number): Promise<{ result?: unknown; error?: unknown }> {
    return this.message(answerTo(id));
  }

  cancel(): Promise<void> {
    return this.reader.cancel();
  }
}

function parseEvent(block: string): SseEvent | undefined {
  const event: SseEvent = { data: '' };
  let fields = 0;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    fields++;
    if (name === 'id') event.id = value;
    else if (name === 'retry') event.retry = Number(value);
    else if (name === 'data') event.data = event.data ? `${event.data}\n${value}` : value;
  }
  return fields > 0 ? event : undefined;
}

/**
 * The message of a POST's response that satisfies `wanted`, whether the server answered with one JSON body (or a
 * batch) or with an SSE stream: Streamable HTTP lets it choose.
 */
export async function messageOf(
  res: Response,
  wanted: (message: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  if (!res.headers.get('content-type')?.startsWith('application/json')) return new SseReader(res.body!).message(wanted);
  const body = (await res.json()) as Record<string, unknown> | Record<string, unknown>[];
  const found = (Array.isArray(body) ? body : [body]).find(wanted);
  if (!found) throw new Error(`the JSON answer holds no message wanted: ${JSON.stringify(body).slice(0, 400)}`);
  return found;
}

/** The response to request `id` in a POST's response, JSON or SSE. */
export function responseOf(res: Response, id: number | string): Promise<{ result?: unknown; error?: unknown }> {
  return messageOf(res, answerTo(id));
}

/** Whether a message is the response (result or error) to request `id`. */
function answerTo(id: number | string): (message: Record<string, unknown>) => boolean {
  return (m) => m.id === id && ('result' in m || 'error' in m);
}
