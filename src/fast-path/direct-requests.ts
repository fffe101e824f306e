import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { JSONRPCMessage, RequestId, Result, Transport } from '@modelcontextprotocol/client';

interface Pending {
  resolve(result: Result): void;
  reject(error: unknown): void;
}

/** Ids of relayed requests: apart from the SDK client's numbers on the connection, so neither reuses the other's. */
const ID_PREFIX = 'mcp-offload-';

/**
 * Requests the proxy relays to a legacy-era upstream, written on its transport as they are instead of through the
 * SDK client, whose codec, result-schema validation, timers and listeners cost more per call than the whole relay
 * hop (see bench/results.md, "Where the time goes"). Everything else on the connection (the handshake, listing,
 * pings, the upstream's own requests and notifications) still goes through the SDK client.
 *
 * It behaves as the SDK client's request() does for a relay: the result comes back as the upstream sent it (a
 * relay has no schema to hold it to), an error answer is rejected as the SDK would reject it (wire-errors.ts
 * keeps its wire form), an abort sends notifications/cancelled and rejects with the SDK's timeout error, and a
 * closed connection rejects what is pending with the SDK's connection-closed error.
 */
export class DirectRequests {
  private readonly pending = new Map<RequestId, Pending>();
  private next = 0;
  private closed = false;

  /** `transport`: what the SDK client talks to, so the same outbound hooks see these requests. */
  constructor(
    private readonly transport: Transport,
    private readonly onerror: (error: Error) => void,
  ) {}

  request(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<Result> {
    if (signal.aborted) return Promise.reject(aborted(signal.reason));
    if (this.closed) return Promise.reject(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
    const id = `${ID_PREFIX}${this.next++}`;
    return new Promise<Result>((resolve, reject) => {
      const settle = () => {
        this.pending.delete(id);
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        if (!this.pending.has(id)) return;
        settle();
        this.transport
          .send({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id, reason: String(signal.reason) },
          })
          .catch((error: unknown) => this.onerror(new Error(`Failed to send cancellation: ${String(error)}`)));
        reject(aborted(signal.reason));
      };
      this.pending.set(id, {
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      signal.addEventListener('abort', onAbort, { once: true });
      this.transport.send({ jsonrpc: '2.0', id, method, params }).catch((error: unknown) => {
        if (!this.pending.has(id)) return;
        settle();
        reject(error);
      });
    });
  }

  /**
   * A transport decorator's inbound hook, after carryWireError: takes the answers to these requests off the
   * connection (undefined) and passes everything else on.
   */
  readonly take = (message: JSONRPCMessage): JSONRPCMessage | undefined => {
    if (!('id' in message) || 'method' in message || typeof message.id !== 'string') return message;
    const pending = this.pending.get(message.id);
    if (!pending) return message;
    if ('result' in message) pending.resolve(message.result);
    else if ('error' in message) {
      const { code, message: text, data } = message.error;
      pending.reject(ProtocolError.fromError(code, text, data));
    } else return message;
    return undefined;
  };

  /** The connection is gone: nothing pending will be answered. */
  close(): void {
    this.closed = true;
    const error = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    for (const pending of [...this.pending.values()]) pending.reject(error);
  }
}

/** What the SDK client rejects an aborted request with. */
function aborted(reason: unknown): SdkError {
  return reason instanceof SdkError ? reason : new SdkError(SdkErrorCode.RequestTimeout, String(reason));
}
