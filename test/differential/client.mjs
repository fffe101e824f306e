// The raw client of the differential harness: it writes a scenario's bytes to the proxy as they are and records
// every byte it gets back, over the proxy's three downstream transports:
//
//   stdio   one message a line on the proxy's stdin; every stdout line is one entry
//   http    Streamable HTTP: one POST per message to <url>, with the session id the proxy gave (and, for a
//           2026-07-28 client, the Mcp-Protocol-Version, Mcp-Method and Mcp-Name headers); each response gives an
//           entry `HTTP <status> <content-type>[ mcp-session-id: <id>]`, then one entry per SSE event's data, or the
//           body (when not empty)
//   sse     the legacy SSE transport: GET /sse, then POST /messages?sessionId=... (the endpoint the stream names)
//
// Over HTTP the entries are grouped by exchange (the SSE GET first, then the POSTs in the order they were sent)
// rather than by arrival: two responses in flight at once (a call's stream and the POST answering the proxy's
// elicitation) may arrive in either order, while the order within one response is the proxy's.
import { sseParser } from './sse.mjs';
import { Inbox } from './inbox.mjs';

/** A client on a proxy child process's stdin/stdout. */
export function stdioClient(child) {
  const inbox = new Inbox();
  const entries = [];
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    pending += chunk;
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      entries.push(line);
      inbox.add(line);
    }
  });
  child.stdin.on('error', () => undefined);
  return {
    inbox,
    send: async (text) => void child.stdin.write(`${text}\n`),
    entries: () => (pending ? [...entries, pending] : [...entries]),
    close: async () => child.stdin.end(),
  };
}

/** Records one HTTP response: its head as an entry, then its events or body as they come (into `exchange`). */
async function readResponse(response, exchange, inbox) {
  const type = response.headers.get('content-type') ?? '';
  const session = response.headers.get('mcp-session-id');
  exchange.push(`HTTP ${response.status}${type ? ` ${type}` : ''}${session ? ` mcp-session-id: ${session}` : ''}`);
  if (!response.body) return;
  const decoder = new TextDecoder();
  if (type.startsWith('text/event-stream')) {
    const feed = sseParser(({ event, data }) => {
      exchange.push(event && event !== 'message' ? `event: ${event}\n${data}` : data);
      if (!event || event === 'message') inbox.add(data);
      else inbox.addEvent(event, data);
    });
    for await (const chunk of response.body) feed(decoder.decode(chunk, { stream: true }));
    return;
  }
  let body = '';
  for await (const chunk of response.body) body += decoder.decode(chunk, { stream: true });
  body += decoder.decode();
  if (body) {
    exchange.push(body);
    if (type.startsWith('application/json')) inbox.add(body);
  }
}

/**
 * A Streamable HTTP client of `url` (the proxy's /mcp). `modern`: a 2026-07-28 client, which sends the version and
 * the method in headers as the spec asks, and has no session.
 */
export function httpClient(url, { modern = false } = {}) {
  const inbox = new Inbox();
  const exchanges = [];
  const inflight = new Set();
  let session;
  let version;
  const headers = (message) => {
    const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (session) h['mcp-session-id'] = session;
    if (modern) {
      h['mcp-protocol-version'] = '2026-07-28';
      if (message?.method) h['mcp-method'] = message.method;
      if (typeof message?.params?.name === 'string') h['mcp-name'] = message.params.name;
    } else if (version) h['mcp-protocol-version'] = version;
    return h;
  };
  const exchange = (fetching) => {
    const lines = [];
    exchanges.push(lines);
    const done = fetching
      .then(async (response) => {
        if (!modern && !session) session = response.headers.get('mcp-session-id') ?? undefined;
        await readResponse(response, lines, inbox);
      })
      .catch((error) => lines.push(`FETCH FAILED ${error.message}`));
    inflight.add(done);
    void done.then(() => inflight.delete(done));
    return done;
  };
  return {
    inbox,
    send: async (text) => {
      const message = JSON.parse(text);
      const sent = exchange(fetch(url, { method: 'POST', headers: headers(message), body: text }));
      // The session id comes with the answer to initialize: later requests wait for it.
      if (message.method === 'initialize') {
        await sent;
        const answer = inbox.all().find((m) => m.message.id === message.id);
        version = answer?.message.result?.protocolVersion;
      }
    },
    entries: () => exchanges.flat(),
    close: async () => {
      if (session) await exchange(fetch(url, { method: 'DELETE', headers: headers() }));
      await Promise.allSettled([...inflight]);
    },
  };
}

/** A client of the legacy SSE transport at `base` (the proxy's origin): GET /sse, POST to the endpoint it names. */
export async function sseClient(base, timeoutMs) {
  const inbox = new Inbox();
  const stream = [];
  const posts = [];
  const abort = new AbortController();
  const response = await fetch(`${base}/sse`, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
  const reading = readResponse(response, stream, inbox).catch(() => undefined);
  const endpoint = await inbox.waitEvent('endpoint', timeoutMs);
  return {
    inbox,
    send: async (text) => {
      const lines = [];
      posts.push(lines);
      const answer = await fetch(new URL(endpoint, base), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: text,
      });
      await readResponse(answer, lines, inbox);
    },
    entries: () => [...stream, ...posts.flat()],
    close: async () => {
      abort.abort();
      await reading;
    },
  };
}
