import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import type { TransportHooks } from '../transports/decorated-transport.js';
import type { Upstream } from '../upstreams/upstream.js';

/**
 * Upstream resource subscriptions made for modern clients' listen streams. The 2026-07-28 revision has no
 * resources/subscribe: a client names the URIs it wants updates of in its `subscriptions/listen` filter, so the
 * proxy subscribes the upstream that serves each URI while at least one listen stream wants it.
 */
export class ResourceWatch {
  private readonly watched = new Map<string, { upstream: Upstream; count: number }>();

  constructor(
    private readonly ownerOf: (uri: string) => Upstream | undefined,
    private readonly log: Logger,
  ) {}

  /** Subscribes upstream to `uris` (those not yet subscribed for a listen stream); the answer undoes it. */
  watch(uris: readonly string[]): () => void {
    const taken: string[] = [];
    for (const uri of new Set(uris)) {
      const entry = this.watched.get(uri);
      if (entry) {
        entry.count++;
      } else {
        const upstream = this.ownerOf(uri);
        if (!upstream?.capabilities?.resources?.subscribe) continue;
        this.watched.set(uri, { upstream, count: 1 });
        void this.send(upstream, uri, true);
      }
      taken.push(uri);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const uri of taken) {
        const entry = this.watched.get(uri);
        if (!entry || --entry.count > 0) continue;
        this.watched.delete(uri);
        void this.send(entry.upstream, uri, false);
      }
    };
  }

  private async send(upstream: Upstream, uri: string, subscribed: boolean): Promise<void> {
    const method = subscribed ? 'resources/subscribe' : 'resources/unsubscribe';
    try {
      const { blobs } = await upstream.request(method, { uri }, {});
      blobs.dispose();
      upstream.trackSubscription(uri, subscribed);
    } catch (error) {
      this.log.debug({ server: upstream.name, uri, err: String(error) }, `${method} for a listen stream failed`);
    }
  }
}

/** The resource URIs a modern `subscriptions/listen` request asks updates of (none for anything else). */
export function listenedUris(message: unknown): string[] {
  if (message === null || typeof message !== 'object') return [];
  const { method, params } = message as { method?: unknown; params?: Record<string, unknown> };
  if (method !== 'subscriptions/listen' || !params) return [];
  const meta = params._meta as Record<string, unknown> | undefined;
  if (meta?.[PROTOCOL_VERSION_META_KEY] === undefined) return [];
  const uris = (params.notifications as { resourceSubscriptions?: unknown } | undefined)?.resourceSubscriptions;
  return Array.isArray(uris) ? uris.filter((uri): uri is string => typeof uri === 'string') : [];
}

/**
 * A stdio connection's listen streams, seen on the wire (the SDK's entry serves them before any Server does): each
 * one's URIs are watched until it is cancelled or the connection ends.
 */
export function watchListens(watch: ResourceWatch): TransportHooks {
  const open = new Map<RequestId, () => void>();
  return {
    inbound(message: JSONRPCMessage) {
      const uris = listenedUris(message);
      if (uris.length > 0 && 'id' in message && message.id !== undefined) open.set(message.id, watch.watch(uris));
      if ('method' in message && message.method === 'notifications/cancelled') {
        const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        if (id !== undefined) {
          open.get(id)?.();
          open.delete(id);
        }
      }
      return message;
    },
    async afterClose() {
      for (const release of open.values()) release();
      open.clear();
    },
  };
}
