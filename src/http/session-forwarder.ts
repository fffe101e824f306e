import type { Agent, IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import { http, https } from '../wire/node-http.js';

/**
 * Marks a request one replica forwarded to another, naming the replica it was meant for (signed:
 * src/shared/forwarding-mark.ts): it is served there or refused, never forwarded again; a process at that address
 * that is not the replica meant (one restarted there) knows the one meant is gone.
 */
export const FORWARDED_HEADER = 'x-mcp-offload-forwarded-for';

/** How long the owner replica may take to accept the connection before it is taken for gone. */
const CONNECT_TIMEOUT_MS = 3000;

/** Hop-by-hop headers (RFC 9110 7.6.1): they describe one connection, not the message. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

const agents: { http?: Agent; https?: Agent } = {};

/**
 * Passes a request for a session another replica holds to that replica, and its answer back as it comes (an SSE
 * stream stays a stream, for as long as both ends are open). The request's body was read whole before (as for a
 * request served here): a replica that cannot be reached is answered 'unreachable' with nothing sent, and the caller
 * serves the request itself. When the owner goes away mid-answer, the client's connection is cut, so it reconnects
 * (with Last-Event-ID) rather than take a truncated answer for a whole one.
 */
export function forwardRequest(
  req: IncomingMessage,
  res: ServerResponse,
  target: string,
  body: Buffer | undefined,
  mark: string,
  log: Logger,
): Promise<'forwarded' | 'unreachable'> {
  const url = new URL(req.url ?? '/', target);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && name !== 'content-length') headers[name] = value;
  }
  headers[FORWARDED_HEADER] = mark;
  if (body) headers['content-length'] = String(body.length);
  const secure = url.protocol === 'https:';
  const client = secure ? https() : http;
  return new Promise((resolve) => {
    let answered = false;
    let clientGone = false;
    const outgoing = client.request(url, {
      method: req.method,
      headers,
      agent: (agents[secure ? 'https' : 'http'] ??= new client.Agent({ keepAlive: true })),
    });
    const connectTimer = setTimeout(() => outgoing.destroy(new Error('connect timeout')), CONNECT_TIMEOUT_MS);
    outgoing.on('socket', (socket) => {
      if (!socket.connecting) clearTimeout(connectTimer);
      else socket.once('connect', () => clearTimeout(connectTimer));
    });
    outgoing.on('response', (answer) => {
      clearTimeout(connectTimer);
      answered = true;
      const passed: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) passed[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, passed);
      res.flushHeaders();
      answer.pipe(res);
      answer.on('error', () => res.destroy());
      answer.on('aborted', () => res.destroy());
      answer.on('end', () => resolve('forwarded'));
      res.on('close', () => {
        if (!answer.complete) outgoing.destroy();
        resolve('forwarded');
      });
    });
    outgoing.on('error', (error) => {
      clearTimeout(connectTimer);
      if (answered) return res.destroy();
      // Nobody to serve any more: not a reason to serve it here.
      if (clientGone) return resolve('forwarded');
      log.info({ target, err: error.message }, 'forwarding: the replica holding the session cannot be reached');
      resolve('unreachable');
    });
    // The client gave up before the owner answered: so does the forwarded request.
    res.on('close', () => {
      if (answered) return;
      clientGone = true;
      outgoing.destroy();
    });
    outgoing.end(body);
  });
}
