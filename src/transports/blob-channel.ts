import type { JSONRPCMessage, ProgressToken, RequestId } from '@modelcontextprotocol/server';
import { Blobs } from './blob-set.js';
import { BlobTable } from './blob-table.js';

/**
 * Ties the blobs a message arrived with to the request that message answers, so a response's payloads
 * travel with that response and no other. Every request the proxy forwards carries a progress token of
 * its own (upstream.ts); the channel sees the request go out with it and the response come back with the
 * same id, and keeps the response's blobs under the token until the caller takes them with the result.
 *
 * Everything else is restored as it arrives and its bytes let go at once: server-to-client requests and
 * notifications (a huge sampling request or log message reaches each client whole), errors, and responses
 * to the proxy's own requests (listing, ping). A response nobody waits for any more (cancelled, timed out)
 * has its blobs let go when it arrives.
 */
export class BlobChannel {
  readonly table = new BlobTable();
  /** Requests sent with a progress token, by id, until answered. */
  private readonly tokens = new Map<RequestId, ProgressToken>();
  private readonly ids = new Map<ProgressToken, RequestId>();
  /** Blobs of responses that arrived, until their caller takes them. */
  private readonly answered = new Map<ProgressToken, Blobs>();
  /** Requests whose caller stopped waiting before the answer came. */
  private readonly abandoned = new Set<RequestId>();

  /** A message on its way to the upstream. */
  sent(message: JSONRPCMessage): void {
    if (!('method' in message) || !('id' in message)) return;
    const token = (message.params?._meta as { progressToken?: ProgressToken } | undefined)?.progressToken;
    if (token === undefined) return;
    this.tokens.set(message.id, token);
    this.ids.set(token, message.id);
  }

  /** A message just parsed, with the blobs kept while it was read: what goes on to the client side of the SDK. */
  received(message: JSONRPCMessage): JSONRPCMessage {
    const blobs = this.table.takeMessageBlobs();
    const id = 'id' in message && !('method' in message) ? message.id : undefined;
    const token = id === undefined ? undefined : this.tokens.get(id);
    if (id !== undefined && token !== undefined) {
      this.tokens.delete(id);
      this.ids.delete(token);
    }
    if (id !== undefined && this.abandoned.delete(id)) {
      // The SDK drops it (no one waits for the id): the markers keep its error message small.
      blobs.dispose();
      return message;
    }
    if (token !== undefined && 'result' in message && blobs.size > 0) {
      this.answered.set(token, blobs);
      return message;
    }
    return blobs.deliver(message);
  }

  /** The blobs of the response to the request sent with `token` (none when it had none); the caller owns them. */
  take(token: ProgressToken): Blobs {
    const blobs = this.answered.get(token);
    this.answered.delete(token);
    return blobs ?? Blobs.NONE;
  }

  /** The caller of the request sent with `token` is done: what was not taken, or comes later, is let go. */
  release(token: ProgressToken): void {
    this.take(token).dispose();
    const id = this.ids.get(token);
    if (id === undefined) return;
    this.ids.delete(token);
    this.tokens.delete(id);
    this.abandoned.add(id);
  }

  /** The connection is gone: no answer will come. */
  close(): void {
    for (const blobs of this.answered.values()) blobs.dispose();
    this.answered.clear();
    this.tokens.clear();
    this.ids.clear();
    this.abandoned.clear();
    this.table.dropMessageBlobs();
  }
}
