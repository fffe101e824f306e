import type { FetchLike } from '@modelcontextprotocol/client';
import { exactNumbersMinted, markExactNumbers, restoreExactNumbers } from '../codec/exact-numbers.js';

const LINE_DATA = 'data:';

/**
 * The fetch a remote upstream's SDK transport uses, with the proxy's exact numbers (codec/exact-numbers.ts) on both
 * ways: a request body gets its markers back as numbers, and a JSON answer or the `data:` lines of an event stream get
 * their numbers that a double would change marked before the SDK parses them. Other answers pass as they are.
 */
export function exactNumbersFetch(inner: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const body = init?.body;
    const restored = typeof body === 'string' && exactNumbersMinted() ? restoreExactNumbers(body) : body;
    return marked(await inner(url, restored === body ? init : { ...init, body: restored }));
  };
}

async function marked(response: Response): Promise<Response> {
  const type = response.headers.get('content-type') ?? '';
  if (!response.body) return response;
  if (type.includes('application/json')) {
    const text = await response.text();
    return rebuilt(response, markExactNumbers(text));
  }
  if (type.includes('text/event-stream')) {
    return rebuilt(
      response,
      response.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(markedDataLines())
        .pipeThrough(new TextEncoderStream()),
    );
  }
  return response;
}

function rebuilt(response: Response, body: string | ReadableStream<Uint8Array>): Response {
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  const copy = new Response(body, { status: response.status, statusText: response.statusText, headers });
  // The SDK reads the URL of the answer to tell a redirect; a constructed Response has none of its own.
  Object.defineProperty(copy, 'url', { value: response.url });
  return copy;
}

/** Marks the `data:` lines of an event stream, a line at a time (a line cut between chunks waits for its end). */
function markedDataLines(): TransformStream<string, string> {
  let partial = '';
  return new TransformStream<string, string>({
    transform(chunk, controller) {
      const text = partial + chunk;
      const cut = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
      partial = text.slice(cut + 1);
      if (cut >= 0) controller.enqueue(markLines(text.slice(0, cut + 1)));
    },
    flush(controller) {
      if (partial) controller.enqueue(markLines(partial));
    },
  });
}

function markLines(text: string): string {
  if (!text.includes(LINE_DATA)) return text;
  // Lines end at CR or LF only (an event stream's own rule): U+2028 inside a JSON string does not end one.
  return text
    .split(/(\r\n|\r|\n)/)
    .map((line) => (line.startsWith(LINE_DATA) ? markExactNumbers(line) : line))
    .join('');
}
