import type { Logger } from '../logger.js';
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
      await upstream.request(method, { uri });
      upstream.trackSubscription(uri, subscribed);
    } catch (error) {
      this.log.debug({ server: upstream.name, uri, err: String(error) }, `${method} for a listen stream failed`);
    }
  }
}
