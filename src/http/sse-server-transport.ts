import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { stringifyExact } from '../codec/exact-numbers.js';

/**
 * The server side of the legacy HTTP+SSE transport (protocol 2024-11-05): messages to the client go
 * out as events on the GET stream, messages from it arrive as POSTs to `endpoint?sessionId=…`.
 *
 * SDK v2 keeps this transport only in a frozen, deprecated package that brings Express along; the
 * proxy still serves clients that speak only SSE, so it has its own, doing what SDK v1's did.
 */
export class SseServerTransport implements Transport {
  readonly sessionId = randomUUID();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private stream?: ServerResponse;

  constructor(
    private readonly endpoint: string,
    private readonly res: ServerResponse,
  ) {}

  async start(): Promise<void> {
    if (this.stream) throw new Error('SseServerTransport already started');
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
    });
    const url = new URL(this.endpoint, 'http://localhost');
    url.searchParams.set('sessionId', this.sessionId);
    this.res.write(`event: endpoint\ndata: ${url.pathname}${url.search}${url.hash}\n\n`);
    this.stream = this.res;
    this.res.on('close', () => {
      this.stream = undefined;
      this.onclose?.();
    });
  }

  /** Takes one POSTed message (`body`, already parsed) and answers the POST: 202, or 400 when it is not one. */
  async handlePostMessage(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (!this.stream) {
      res.writeHead(500).end('SSE connection not established');
      return;
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') {
      const error = new Error(`Unsupported content-type: ${type}`);
      res.writeHead(400).end(String(error));
      this.onerror?.(error);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(body);
    if (!parsed.success) {
      this.onerror?.(parsed.error);
      res.writeHead(400).end(`Invalid message: ${JSON.stringify(body)}`);
      return;
    }
    this.onmessage?.(parsed.data as JSONRPCMessage);
    res.writeHead(202).end('Accepted');
  }

  async close(): Promise<void> {
    this.stream?.end();
    this.stream = undefined;
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.stream) throw new Error('Not connected');
    this.stream.write(messageEvent(message));
  }
}

/** One JSON-RPC message as an SSE event, as the SDK's transports frame it (no event id). */
export function messageEvent(message: object): string {
  return `event: message\ndata: ${stringifyExact(message)}\n\n`;
}
