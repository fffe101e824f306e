// The upstream side of a probe: a TCP server on 127.0.0.1 that socket-upstream.mjs (the process the proxy starts)
// connects to. Each connection is one upstream connection of the proxy; the probe answers its requests, or writes
// whatever bytes it wants instead (garbage, huge lines, wrong ids, slow writes).
import { createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

export type Message = Record<string, unknown> & { id?: unknown; method?: string; params?: Record<string, unknown> };

/** The process the proxy runs for a scripted upstream (pass `--port <port>`). */
export const SOCKET_UPSTREAM = fileURLToPath(new URL('./socket-upstream.mjs', import.meta.url));

/** What a probe's upstream does; anything left out is answered as a plain, well-behaved 2025-11-25 server. */
export interface UpstreamScript {
  /** The tools it lists (default: one tool, `act`). */
  tools?: Array<{ name: string; inputSchema?: Record<string, unknown> }>;
  /** A `tools/list`, instead of `tools`: as `call`, the result, or `undefined` when the probe answered itself. */
  list?(connection: UpstreamConnection, id: unknown): Promise<unknown> | unknown;
  /**
   * A `tools/call`: the result to answer with, or `undefined` when the probe answered (or chose not to) itself
   * through `connection`.
   */
  call?(params: Record<string, unknown>, connection: UpstreamConnection, id: unknown): Promise<unknown> | unknown;
}

const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/** One connection the proxy opened to the scripted upstream. */
export class UpstreamConnection {
  /** Every message the proxy sent on this connection, in order. */
  readonly received: Message[] = [];
  /** The lines they came as (JSON.parse rounds numbers a double cannot hold; these keep every digit). */
  readonly lines: string[] = [];
  private buffer = '';
  private nextId = 0;
  private readonly pending = new Map<string, (message: Message) => void>();

  constructor(
    private readonly socket: Socket,
    private readonly script: UpstreamScript,
  ) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.read(chunk));
    socket.on('error', () => undefined);
  }

  /** Writes raw text or bytes as they are; resolves once the socket took them (backpressure honored). */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      if (this.socket.write(data)) resolve();
      else this.socket.once('drain', () => resolve());
    });
  }

  send(message: Message): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`);
  }

  answer(id: unknown, result: unknown): Promise<void> {
    return this.send({ jsonrpc: '2.0', id, result });
  }

  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  /** A request of the upstream to the proxy; resolves with the proxy's answer, or rejects after `timeoutMs`. */
  request(method: string, params: Record<string, unknown> = {}, timeoutMs = 10_000): Promise<Message> {
    const id = `up-${++this.nextId}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the proxy did not answer the upstream's ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      void this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    for (let end = this.buffer.indexOf('\n'); end >= 0; end = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 1);
      if (line.trim() === '') continue;
      const message = JSON.parse(line) as Message;
      this.lines.push(line);
      this.received.push(message);
      void this.handle(message);
    }
  }

  private async handle(message: Message): Promise<void> {
    if (message.method === undefined) {
      const waiting = typeof message.id === 'string' ? this.pending.get(message.id) : undefined;
      if (waiting) {
        this.pending.delete(message.id as string);
        waiting(message);
      }
      return;
    }
    if (message.id === undefined) return; // a notification: nothing to answer
    const params = message.params ?? {};
    switch (message.method) {
      case 'initialize': {
        const asked = String(params.protocolVersion);
        return this.answer(message.id, {
          protocolVersion: LEGACY_VERSIONS.includes(asked) ? asked : LEGACY_VERSIONS[0],
          capabilities: { tools: {} },
          serverInfo: { name: 'hostile', version: '1.0.0' },
        });
      }
      case 'tools/list': {
        if (this.script.list) {
          const result = await this.script.list(this, message.id);
          if (result !== undefined) await this.answer(message.id, result);
          return;
        }
        return this.answer(message.id, {
          tools: (this.script.tools ?? [{ name: 'act' }]).map((tool) => ({
            inputSchema: { type: 'object' },
            ...tool,
          })),
        });
      }
      case 'tools/call': {
        const result = await this.script.call?.(params, this, message.id);
        if (result !== undefined) await this.answer(message.id, result);
        return;
      }
      case 'ping':
        return this.answer(message.id, {});
      default:
        // server/discover among them: this is a 2025-era server.
        return this.send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32601, message: `Method not found: ${message.method}` },
        });
    }
  }
}

/** The scripted upstream: every connection the proxy opens to it follows the same script. */
export class ScriptedUpstream {
  private constructor(
    private readonly server: Server,
    readonly port: number,
    /** Every connection the proxy opened, in order. */
    readonly connections: UpstreamConnection[],
  ) {}

  static async start(script: UpstreamScript = {}): Promise<ScriptedUpstream> {
    const connections: UpstreamConnection[] = [];
    const server = createServer((socket) => connections.push(new UpstreamConnection(socket, script)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    return new ScriptedUpstream(server, address.port, connections);
  }

  /** The args of the config's server entry that runs this upstream. */
  get args(): string[] {
    return [SOCKET_UPSTREAM, '--port', String(this.port)];
  }

  async close(): Promise<void> {
    for (const connection of this.connections) connection.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
