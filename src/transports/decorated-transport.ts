import type { Transport, TransportSendOptions, JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/server';

/** What a decorator adds to a transport; each hook is optional. */
export interface TransportHooks {
  /**
   * A message from the other side, before the SDK sees it: answers the message to pass on, or
   * undefined when the hook has dealt with it (the SDK then never sees it).
   */
  inbound?(message: JSONRPCMessage, extra?: MessageExtraInfo): JSONRPCMessage | undefined;
  /** A message on its way out: answers the message to send. */
  outbound?(message: JSONRPCMessage): JSONRPCMessage;
  /** Runs once the wrapped transport has closed (close() resolves after it). */
  afterClose?(): Promise<void>;
  /** Runs when the wrapped transport reports it closed, whoever closed it, before the SDK hears of it. */
  closed?(): void;
  /** Learns the decorated transport once it is made, for hooks that send on it (outbound hooks included). */
  attached?(decorated: Transport): void;
}

/**
 * A transport that wraps another with hooks on what comes in, what goes out and closing: the one way
 * the proxy changes how a connection behaves, instead of patching a transport's methods in place.
 * The SDK connects to the decorator; the wrapped transport stays untouched and can still be asked
 * for what it is (a process's id, its exit).
 */
export class DecoratedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  constructor(
    readonly inner: Transport,
    private readonly hooks: TransportHooks,
  ) {
    // Set now, not in start(): an in-memory pair can deliver as soon as the SDK has connected. Handlers
    // the owner set on the inner transport before (an HTTP endpoint's onclose) still run first, as the
    // SDK's connect() chains them.
    const { onmessage, onclose, onerror } = inner;
    inner.onmessage = (message, extra) => {
      onmessage?.(message, extra);
      const next = hooks.inbound ? hooks.inbound(message, extra) : message;
      if (next) this.onmessage?.(next, extra);
    };
    inner.onclose = () => {
      onclose?.();
      hooks.closed?.();
      this.onclose?.();
    };
    inner.onerror = (error) => {
      onerror?.(error);
      this.onerror?.(error);
    };
    hooks.attached?.(this);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.inner.setSupportedProtocolVersions?.(versions);
  }

  get hasPerRequestStream(): boolean | undefined {
    return this.inner.hasPerRequestStream;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(this.hooks.outbound ? this.hooks.outbound(message) : message, options);
  }

  /** Sends a message through the outbound hooks on another wire to the same peer (fast-path/http-post.ts). */
  sendVia<M extends JSONRPCMessage>(message: M, wire: (message: M) => Promise<void>): Promise<void> {
    return wire((this.hooks.outbound ? this.hooks.outbound(message) : message) as M);
  }

  async close(): Promise<void> {
    await this.inner.close();
    await this.hooks.afterClose?.();
  }
}
