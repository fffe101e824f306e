import type { Logger } from '../logger.js';
import { SUBSCRIPTION_ID_KEY } from '../protocol/envelope.js';
import { Frame } from '../wire/frame.js';
import type { Connection } from './connect.js';
import { envelopeMeta } from './connect.js';
import { PROXY_IDENTITY } from './client-identity.js';

/** A stream the server ended is opened again after this long. */
const REOPEN_DELAY_MS = 1000;

/**
 * The `subscriptions/listen` stream of a 2026-07-28 upstream, where it sends what the proxy needs to hear: the list
 * changes the server offers and the resources some client subscribed to. One stream at a time; changing what it
 * asks for opens a new one (and ends the old); one the server ends is opened again.
 */
export class ModernListen {
  private current?: { connection: Connection; stop: AbortController };
  private queue: Promise<void> = Promise.resolve();

  constructor(
    /** The upstream the stream is of: its name, and the resource URIs its clients subscribed to. */
    private readonly upstream: { readonly name: string; readonly subscribed: ReadonlySet<string> },
    private readonly log: Logger,
  ) {}

  /** (Re)opens the stream on `connection` with the filter as it is now. Resolves once the request is on its way. */
  open(connection: Connection): Promise<void> {
    this.queue = this.queue.then(() => this.reopen(connection));
    return this.queue;
  }

  stop(): void {
    this.current?.stop.abort('the connection closed');
    this.current = undefined;
  }

  /**
   * A notification as the rest of the proxy sees it: one the stream carried without its subscription id (that is the
   * proxy's business with the upstream, and means nothing to a client, which is told on streams of its own); the
   * stream's acknowledgment is consumed here (undefined).
   */
  unwrap(frame: Frame): Frame | undefined {
    if (frame.method === 'notifications/subscriptions/acknowledged') return undefined;
    const meta = frame.params._meta as Record<string, unknown> | undefined;
    if (meta === undefined || meta === null || typeof meta !== 'object' || !(SUBSCRIPTION_ID_KEY in meta)) return frame;
    const { [SUBSCRIPTION_ID_KEY]: _stream, ...rest } = meta;
    return frame.with(['params', '_meta'], Object.keys(rest).length ? rest : undefined);
  }

  private async reopen(connection: Connection): Promise<void> {
    this.stop();
    const filter = this.filter(connection);
    if (Object.keys(filter).length === 0) return;
    const stop = new AbortController();
    this.current = { connection, stop };
    const request = Frame.request(0, 'subscriptions/listen', {
      _meta: envelopeMeta(PROXY_IDENTITY, connection.protocolVersion),
      notifications: filter,
    });
    connection.peer.request(request, { signal: stop.signal }).then(
      (answer) => this.ended(connection, stop, answer.isError ? `error ${answer.message.error?.message}` : 'closed'),
      (error: unknown) => this.ended(connection, stop, String(error)),
    );
  }

  private ended(connection: Connection, stop: AbortController, how: string): void {
    if (stop.signal.aborted || this.current?.stop !== stop) return;
    this.current = undefined;
    if (connection.peer.isClosed) return;
    this.log.info(`upstream "${this.upstream.name}" ended its notification stream (${how}); opening it again`);
    setTimeout(() => {
      if (!connection.peer.isClosed && !this.current) void this.open(connection);
    }, REOPEN_DELAY_MS).unref();
  }

  private filter(connection: Connection): Record<string, unknown> {
    const capabilities = connection.capabilities;
    const uris = [...this.upstream.subscribed];
    return {
      ...(capabilities?.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(capabilities?.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(capabilities?.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(capabilities?.resources?.subscribe && uris.length ? { resourceSubscriptions: uris } : {}),
    };
  }
}
