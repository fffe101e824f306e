// What may differ between two builds (or two runs of one build) without being a difference: the values a proxy
// chooses freely or that change every run. Each is replaced by a placeholder; EVERYTHING ELSE is compared byte for
// byte (formatting, key order, number spelling, escapes, which messages come and in which order).
//
// The complete list (RULES below; the last two are applied first, to the list of entries):
//
//   request-id        the id of a request the proxy sends (to the upstream, or to the client: elicitation/create,
//                     sampling/createMessage, roots/list), and the same id where a notifications/cancelled names it
//                     (params.requestId): <id-1>, <id-2>, ... by order of first appearance, per side and section.
//                     A string id stays quoted ("<id-1>"), a number id does not (<id-1>), so the type still counts.
//   progress-token    params._meta.progressToken of a request the proxy sends: "<token-1>", ... (same numbering)
//   request-state     result.requestState of an input_required answer the client gets, when the proxy made it (a
//                     value the scripted upstream never sent: the old build signs a random id and an expiry):
//                     "<request-state-1>", ... An upstream's own requestState, passed on, is compared as it is.
//   temp-dir          the run's temporary directory (the artifact directory is in it): <tmp>
//   artifact-name     the file name of an artifact (what follows artifact://<server>/), wherever it appears (paths,
//                     resource_link names, download URLs): <artifact-1>, ... by order of first appearance
//   session-id        an HTTP session id (mcp-session-id header, sessionId= of the legacy SSE endpoint): <session-1>
//   signed-link       the expiry and signature of a download link (expires=..., sig=...): <expires>, <sig>
//   timestamp         an ISO 8601 date and time: <timestamp>
//   proxy-version     the version next to the name "mcp-offload" (its clientInfo/serverInfo): <proxy-version>
//   port              the port after 127.0.0.1, localhost or [::1]: <port>
//   sse-priming       (client side, Streamable HTTP only) an SSE event without data (a priming event: an event id
//                     to resume from) is left out
//   answer-framing    (client side, Streamable HTTP only) a response to a POST that carries one message, the answer,
//                     is written as an application/json body whether it came as one or as an SSE stream
//
// The last two because the old build decides both by a timer (src/http/lazy-answer.ts): an answer within 50 ms goes
// as one JSON body; after 50 ms, or when something else comes first, the response becomes an SSE stream, which opens
// with a priming event only when the 50 ms passed first. Which one a run gets varies with the machine's load. A
// stream with anything else on it (progress, a question, a log message) is kept as it came, but for its priming.
//
// Ids and tokens are found in place (json-span.mjs), so that replacing them changes nothing else in the message.
import { valueSpan } from './json-span.mjs';

export const RULES = [
  'request-id',
  'progress-token',
  'request-state',
  'temp-dir',
  'artifact-name',
  'session-id',
  'signed-link',
  'timestamp',
  'proxy-version',
  'port',
  'sse-priming',
  'answer-framing',
];

/** Stable placeholders by order of first appearance: `<${prefix}-1>`, ... */
class Placeholders {
  #seen = new Map();
  constructor(prefix) {
    this.prefix = prefix;
  }
  get(key) {
    if (!this.#seen.has(key)) this.#seen.set(key, `<${this.prefix}-${this.#seen.size + 1}>`);
    return this.#seen.get(key);
  }
}

/** Where the JSON of an entry starts: entries of HTTP exchanges begin with a head (`POST /mcp`, headers). */
export const jsonStart = (entry) => {
  const m = /^[{[]/m.exec(entry);
  return m ? m.index : -1;
};

export function parseEntry(entry) {
  const at = jsonStart(entry);
  if (at < 0) return undefined;
  try {
    return JSON.parse(entry.slice(at));
  } catch {
    return undefined;
  }
}

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Normalizes one side's entries (one section of them: placeholders number from 1 in each). `tempDir`: the run's
 * temporary directory; `version`: the proxy's version; `upstreamStates`: the requestState values the scripted
 * upstream sends. Returns { messages, replacements }, the replacements as { rule, from, to }, each pair once.
 */
export function normalizeEntries(entries, { tempDir, version, upstreamStates = new Set() }) {
  const ids = new Placeholders('id');
  const tokens = new Placeholders('token');
  const states = new Placeholders('request-state');
  const artifacts = new Placeholders('artifact');
  const sessions = new Placeholders('session');
  const replacements = new Map();
  const note = (rule, from, to) => replacements.set(`${rule}\0${from}`, { rule, from, to });
  const placeholder = (map, rule, raw) => {
    const to = map.get(raw);
    const quoted = raw.startsWith('"') ? `"${to}"` : to;
    note(rule, raw, quoted);
    return quoted;
  };

  const messages = entries.map((entry) => {
    let text = entry;
    // request-id, progress-token: in place, from the end of the text to its start so earlier spans stay valid.
    const message = parseEntry(text);
    const at = jsonStart(text);
    const spans = [];
    const span = (path, map, rule) => {
      const found = valueSpan(text, path, at);
      if (found) spans.push({ found, map, rule });
    };
    if (message && typeof message === 'object' && typeof message.method === 'string') {
      if (message.id !== undefined) span(['id'], ids, 'request-id');
      if (message.id !== undefined && message.params?._meta?.progressToken !== undefined) {
        span(['params', '_meta', 'progressToken'], tokens, 'progress-token');
      }
      if (message.method === 'notifications/cancelled') span(['params', 'requestId'], ids, 'request-id');
    }
    const state = message?.result?.requestState;
    if (typeof state === 'string' && !upstreamStates.has(state))
      span(['result', 'requestState'], states, 'request-state');
    // Numbered by order of appearance in the text, replaced from the end.
    spans.sort((a, b) => a.found[0] - b.found[0]);
    const values = spans.map(({ found, map, rule }) => placeholder(map, rule, text.slice(found[0], found[1])));
    for (let i = spans.length - 1; i >= 0; i--) {
      const [start, end] = spans[i].found;
      text = text.slice(0, start) + values[i] + text.slice(end);
    }

    const replace = (rule, pattern, to) => {
      text = text.replace(pattern, (...match) => {
        const value = typeof to === 'function' ? to(...match) : to;
        note(rule, match[0], value);
        return value;
      });
    };
    if (tempDir) replace('temp-dir', new RegExp(escapeRegExp(tempDir), 'g'), '<tmp>');
    for (const [, name] of text.matchAll(/artifact:\/\/[^/"\s\\]+\/([^"\s\\?#]+)/g)) {
      if (name.startsWith('<artifact-')) continue;
      replace('artifact-name', new RegExp(escapeRegExp(name), 'g'), artifacts.get(name));
    }
    replace('session-id', /(mcp-session-id: )(\S+)/gi, (_, key, id) => `${key}${sessions.get(id)}`);
    replace('session-id', /(sessionId=)([^&"\s\\]+)/g, (_, key, id) => `${key}${sessions.get(id)}`);
    replace('signed-link', /([?&]expires=)\d+/g, (_, key) => `${key}<expires>`);
    replace('signed-link', /([?&]sig=)[\w-]+/g, (_, key) => `${key}<sig>`);
    replace('timestamp', /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g, '<timestamp>');
    if (version) {
      const v = escapeRegExp(JSON.stringify(version));
      replace(
        'proxy-version',
        new RegExp(`("name"\\s*:\\s*"mcp-offload"\\s*,\\s*"version"\\s*:\\s*)${v}`, 'g'),
        (_, k) => `${k}"<proxy-version>"`,
      );
      replace(
        'proxy-version',
        new RegExp(`("version"\\s*:\\s*)${v}(\\s*,\\s*"name"\\s*:\\s*"mcp-offload")`, 'g'),
        (_, k, n) => `${k}"<proxy-version>"${n}`,
      );
    }
    replace('port', /(127\.0\.0\.1|localhost|\[::1\]):\d+/g, (_, host) => `${host}:<port>`);
    return text;
  });
  return { messages, replacements: [...replacements.values()] };
}

/** The methods of an upstream's opening: the probe, initialize and the lists the proxy reads when it connects. */
const HANDSHAKE_METHODS = new Set([
  'server/discover',
  'initialize',
  'notifications/initialized',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'ping',
  'logging/setLevel',
]);

/**
 * Splits the upstream's entries into its handshake (the longest opening run of handshake requests, their
 * notifications and bodiless HTTP requests such as the GET of a listen stream) and the rest, so that a change in
 * the opening (another probe, one list more or less) shows there without renumbering the rest.
 */
export function splitHandshake(entries) {
  let at = 0;
  for (; at < entries.length; at++) {
    const entry = entries[at];
    if (jsonStart(entry) < 0) continue;
    const message = parseEntry(entry);
    if (!HANDSHAKE_METHODS.has(message?.method)) break;
  }
  return [entries.slice(0, at), entries.slice(at)];
}

const HEAD = /^HTTP (\d+) text\/event-stream(.*)$/;

/**
 * sse-priming and answer-framing (see the header), on the entries a Streamable HTTP client recorded: each response is
 * its head (`HTTP <status> ...`) and the entries up to the next head. Returns { entries, replacements }; the
 * replacements name the rules whenever a response they apply to is seen, whichever way it came, so that the log is
 * the same from run to run.
 */
export function canonicalFraming(entries) {
  const out = [];
  const applied = new Set();
  for (let at = 0; at < entries.length;) {
    let end = at + 1;
    while (end < entries.length && !entries[end].startsWith('HTTP ')) end++;
    const head = HEAD.exec(entries[at]);
    if (!head) {
      out.push(...entries.slice(at, end));
      if (/^HTTP \d+ application\/json/.test(entries[at]) && end - at === 2) applied.add('answer-framing');
      at = end;
      continue;
    }
    applied.add('sse-priming');
    const events = entries.slice(at + 1, end).filter((event) => event !== '');
    const message = events.length === 1 ? parseEntry(events[0]) : undefined;
    if (message && message.method === undefined && ('result' in message || 'error' in message)) {
      out.push(`HTTP ${head[1]} application/json${head[2]}`, events[0]);
      applied.add('answer-framing');
    } else out.push(entries[at], ...events);
    at = end;
  }
  const to = { 'sse-priming': '(left out)', 'answer-framing': 'application/json' };
  return { entries: out, replacements: [...applied].sort().map((rule) => ({ rule, from: '…', to: to[rule] })) };
}
