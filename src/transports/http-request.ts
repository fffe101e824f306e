import type * as Http from 'node:http';
import type * as Https from 'node:https';
import { onAbort, type Signal } from '../rpc/cancellation.js';
import { byteLengthOf } from '../wire/blobs.js';
import { http, https } from '../wire/node-http.js';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface HttpAttempt {
  method: HttpMethod;
  url: URL;
  headers: Record<string, string>;
  /** The body in pieces (a frame's chunks: strings, and the buffers of its blobs). */
  body?: ReadonlyArray<string | Buffer>;
  /** Ends the request (its socket destroyed with the signal's reason). */
  signal?: Signal;
  /** Called once the body has been handed to the socket (the first request of a redirect chain). */
  onWritten?: () => void;
}

/** Redirects followed in a row, as the SDK's transports follow them (fetchWithinOrigin). */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Node's own HTTP client towards one MCP server, on keep-alive agents: fetch and web streams cost a relayed call
 * more than the hop itself (docs/performance.md), and node:http hands the body over as the buffers it read, which
 * the literal cutter keeps without copying.
 *
 * Redirects are followed as the SDK's transports follow them by default ('same-origin'): only within the origin of
 * the request (or its https form), keeping the method (any redirect of a GET, a 307 or 308 of anything else) and
 * the user info, at most 5 in a row. Any other redirect is returned as the response it is; `unfollowedRedirect`
 * says what to do about it.
 */
export class HttpEndpoint {
  private readonly agents: { http?: Http.Agent; https?: Https.Agent } = {};
  /** Where each URL's requests go, read from it once: URL getters and the options made of them add up per request. */
  private readonly targets = new WeakMap<URL, Target>();
  private destroyed = false;

  async request(attempt: HttpAttempt): Promise<Http.IncomingMessage> {
    let url = attempt.url;
    for (let followed = 0; ; followed++) {
      const res = await this.once({ ...attempt, url, ...(followed > 0 ? { onWritten: undefined } : {}) });
      const target = redirectTarget(url, res);
      if (!target || followed === MAX_REDIRECTS) return res;
      const keepsMethod = attempt.method === 'GET' || res.statusCode === 307 || res.statusCode === 308;
      const keepsUserinfo =
        !(target.username || target.password) || (target.username === url.username && target.password === url.password);
      if (!keepsMethod || !keepsUserinfo || !isWithinOrigin(url, target)) return res;
      res.resume();
      url = target;
    }
  }

  private targetOf(url: URL): Target {
    let target = this.targets.get(url);
    if (target) return target;
    const secure = url.protocol === 'https:';
    target = {
      secure,
      options: {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || (secure ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        agent: secure
          ? (this.agents.https ??= new (https().Agent)({ keepAlive: true }))
          : (this.agents.http ??= new http.Agent({ keepAlive: true })),
        ...(url.username || url.password
          ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }
          : {}),
      },
    };
    this.targets.set(url, target);
    return target;
  }

  /** Ends every connection; requests still open fail. */
  destroy(): void {
    this.destroyed = true;
    this.agents.http?.destroy();
    this.agents.https?.destroy();
  }

  private once({ method, url, headers, body, signal, onWritten }: HttpAttempt): Promise<Http.IncomingMessage> {
    if (this.destroyed) return Promise.reject(new Error('the connection is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const target = this.targetOf(url);
      const options: Http.RequestOptions = {
        ...target.options,
        method,
        headers: body ? { ...headers, 'content-length': String(byteLengthOf(body)) } : headers,
      };
      let req: Http.ClientRequest;
      try {
        req = (target.secure ? https() : http).request(options, (res) => {
          // Errors of a response are its readers' to see (a stream cut short ends with 'close' all the same).
          res.on('error', () => undefined);
          resolve(res);
        });
      } catch (error) {
        // An invalid header value (node:http checks them as it builds the request).
        return reject(error as Error);
      }
      req.on('error', reject);
      // Not node:http's `signal` option: it watches the request through stream.finished (eos) and an abort listener
      // of its own, several times what one listener costs, on every call.
      if (signal)
        req.once(
          'close',
          onAbort(signal, () => req.destroy(signal.reason as Error)),
        );
      const written = () => onWritten?.();
      if (!body?.length) return void req.end(written);
      // The body is in memory (a frame's chunks): written and ended in this turn, the last piece with the end, rather
      // than ended a promise job after its pieces were written.
      for (let i = 0; i < body.length - 1; i++) req.write(body[i]!);
      req.end(body[body.length - 1]!, written);
    });
  }
}

interface Target {
  secure: boolean;
  /** The request options that come from the URL (and the agent for its scheme). */
  options: Http.RequestOptions;
}

/** Whether `to` has the scheme, host and port of `from`, or is its https form with both on the default port. */
function isWithinOrigin(from: URL, to: URL): boolean {
  if (from.protocol === to.protocol && from.host === to.host) return true;
  return (
    from.protocol === 'http:' && to.protocol === 'https:' && from.hostname === to.hostname && !from.port && !to.port
  );
}

/** Where a redirect response points, if it is one that names a place. */
function redirectTarget(url: URL, res: Http.IncomingMessage): URL | undefined {
  const location = REDIRECT_STATUSES.has(res.statusCode ?? 0) ? res.headers.location : undefined;
  if (!location) return undefined;
  try {
    return new URL(location, url);
  } catch {
    return undefined;
  }
}

/** The SDK's words for a redirect it did not follow, or undefined when `res` is no redirect. */
export function unfollowedRedirect(url: URL, res: Http.IncomingMessage): string | undefined {
  const target = redirectTarget(url, res);
  if (!target) return undefined;
  target.username = target.password = target.search = target.hash = '';
  if (target.protocol === 'http:' && url.protocol === 'https:') {
    target.protocol = 'https:';
    return `Redirect from https to plain http not followed; try ${target.href} as the endpoint (redirectPolicy: 'same-origin')`;
  }
  return `Redirect to ${target.href} not followed; use that URL as the endpoint if it is the intended server (redirectPolicy: 'same-origin')`;
}

/** A media type without its parameters, lower-cased (`Text/Event-Stream; charset=utf-8` → `text/event-stream`). */
export function mediaType(header: string | undefined): string | undefined {
  return header?.split(';')[0]!.trim().toLowerCase() || undefined;
}

/**
 * The start of a response body as text, for an error message or a JSON-RPC error answer: at most `limit` bytes are
 * kept, the rest is read and dropped (so the connection can be reused).
 */
export function readText(res: Http.IncomingMessage, limit = 64 * 1024): Promise<string> {
  return new Promise((resolve) => {
    const kept: Buffer[] = [];
    let bytes = 0;
    res.on('data', (chunk: Buffer) => {
      if (bytes < limit) kept.push(chunk.subarray(0, limit - bytes));
      bytes += chunk.length;
    });
    const done = () => resolve(Buffer.concat(kept).toString('utf8'));
    res.once('end', done);
    res.once('close', done);
  });
}

/** `configured` (a header value, comma-separated) plus `types`, each once, lower-cased, as the SDK joins them. */
export function acceptWith(configured: string | undefined, ...types: string[]): string {
  const all = [...(configured?.split(',').map((s) => s.trim().toLowerCase()) ?? []), ...types];
  return [...new Set(all)].join(', ');
}
