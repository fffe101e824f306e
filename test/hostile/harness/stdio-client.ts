// The one client of a proxy run on stdio (mcp-offload wrapping servers for a desktop client): JSON-RPC lines written
// to the process's stdin, answers read off its stdout.
import type { Readable, Writable } from 'node:stream';
import type { Message } from './scripted-upstream.js';
import {
  ANSWER_BOUND_MS,
  LEGACY_VERSION,
  parsed,
  requestText,
  withEnvelope,
  within,
  type AskOptions,
  type Era,
  type ProbeClient,
} from './client.js';

export class StdioClient implements ProbeClient {
  readonly transport = 'stdio';
  /** Every message the proxy wrote, in order (answers, notifications, its own requests). */
  readonly received: Message[] = [];
  private buffer = '';
  private nextId = 0;
  private readonly waiting = new Map<string, (message: Message) => void>();

  constructor(
    readonly era: Era,
    private readonly input: Writable,
    output: Readable,
  ) {
    output.on('data', (chunk: Buffer | string) => this.read(String(chunk)));
    input.on('error', () => undefined);
  }

  /** A client of `era` over the proxy's stdio, its handshake done (a modern client has none). */
  static async open(era: Era, input: Writable, output: Readable): Promise<StdioClient> {
    const client = new StdioClient(era, input, output);
    if (era === 'legacy') {
      const hello = await client.ask(
        'initialize',
        { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'hostile-probe', version: '1.0.0' } },
        { timeoutMs: 30_000 },
      );
      if (!hello.result) throw new Error(`initialize failed: ${JSON.stringify(hello).slice(0, 500)}`);
      await client.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    }
    return client;
  }

  /** Writes raw text or bytes to the proxy's stdin, as they are. */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.input.write(data, (error) => (error ? reject(error) : undefined))) resolve();
      else this.input.once('drain', () => resolve());
    });
  }

  ask(method: string, params: Record<string, unknown> = {}, options: AskOptions = {}): Promise<Message> {
    const id = options.id ?? ++this.nextId;
    const line = `${JSON.stringify({ jsonrpc: '2.0', id, method, params: withEnvelope(this.era, params) })}\n`;
    return this.askLine(line, id, method, options.timeoutMs);
  }

  askRaw(method: string, members: string, options: AskOptions = {}): Promise<Message> {
    const id = options.id ?? ++this.nextId;
    return this.askLine(`${requestText(this.era, id, method, members)}\n`, id, method, options.timeoutMs);
  }

  /** Writes `line` (a request whose id is `id`, in whatever form the probe wants) and waits for its answer. */
  askLine(line: string | Buffer, id: unknown, what: string, timeoutMs = ANSWER_BOUND_MS): Promise<Message> {
    const key = JSON.stringify(id);
    const answered = new Promise<Message>((resolve) => this.waiting.set(key, resolve));
    void this.write(line);
    return within(answered, timeoutMs, `${what} over stdio`).finally(() => this.waiting.delete(key));
  }

  async close(): Promise<void> {
    this.input.end();
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    for (let end = this.buffer.indexOf('\n'); end >= 0; end = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 1);
      if (line.trim() === '') continue;
      const message = parsed(line);
      this.received.push(message);
      if (message.method !== undefined && message.id !== undefined) void this.answerProxy(message);
      else if (message.method === undefined) this.waiting.get(JSON.stringify(message.id))?.(message);
    }
  }

  /** The proxy asks its client something (roots, sampling): a plain client has no roots and does nothing else. */
  private answerProxy(request: Message): Promise<void> {
    const answer =
      request.method === 'roots/list'
        ? { jsonrpc: '2.0', id: request.id, result: { roots: [] } }
        : { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } };
    return this.write(`${JSON.stringify(answer)}\n`);
  }
}
