import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { Frame, type Message } from '../wire/frame.js';
import { numbersAsDoubles } from '../wire/json.js';
import type { Wire } from '../wire/wire.js';

/**
 * A peer that lives in this process and speaks through an MCP SDK Transport (an in-memory pair: the built-in
 * browser backend, a library user's own transport, the tests' SDK clients). Messages are objects on that side:
 * a frame goes over with its blobs put back and its exact numbers as doubles, as a JavaScript peer reading the
 * text would have had them; what comes back is a frame of the object.
 */
export class SdkWire implements Wire {
  onframe?: Wire['onframe'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private closed = false;
  private finished?: Promise<void>;

  constructor(
    private readonly transport: Transport,
    /** Runs when the wire closes (the browser backend closes its browsers). */
    private readonly afterClose?: () => Promise<void>,
  ) {
    transport.onmessage = (message: JSONRPCMessage) => this.onframe?.(Frame.of(message as Message));
    transport.onclose = () => this.ended();
    transport.onerror = (error: Error) => this.onerror?.(error);
  }

  start(): Promise<void> {
    return this.transport.start();
  }

  send(frame: Frame): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the connection is closed'));
    const message = numbersAsDoubles(frame.blobs.restore(frame.message));
    return this.transport.send(message as JSONRPCMessage);
  }

  /** Resolves once the other side is closed too (the browser backend's browsers included). */
  async close(): Promise<void> {
    if (!this.closed) await this.transport.close().catch(() => undefined);
    this.ended();
    await this.finished;
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
    this.finished = this.afterClose?.().catch(() => undefined);
  }
}
