import { Frame, type Id } from '../wire/frame.js';
import { keyOf } from '../rpc/peer.js';
import { SUBSCRIPTION_ID_KEY } from '../protocol/envelope.js';

/** What a `subscriptions/listen` stream asked to hear (2026-07-28). */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

interface Listen {
  id: Id;
  filter: ListenFilter;
  send(frame: Frame): void;
  /** Ends the stream from the proxy's side (shutdown): answered with a completion result first. */
  end(): void;
}

/** Which filter flag asks for each change notification (a Map: an upstream's method is looked up in it). */
const FILTER_KEY = new Map<string, keyof ListenFilter>([
  ['notifications/tools/list_changed', 'toolsListChanged'],
  ['notifications/prompts/list_changed', 'promptsListChanged'],
  ['notifications/resources/list_changed', 'resourcesListChanged'],
]);

/**
 * The open `subscriptions/listen` streams of a 2026-07-28 client (a stdio connection's own, or every stream an HTTP
 * principal opened): change notifications go to the streams whose filter asked for them, each tagged with the
 * stream's subscription id.
 */
export class Listens {
  private readonly open = new Map<unknown, Listen>();

  get size(): number {
    return this.open.size;
  }

  /** The resource URIs some open stream wants updates of. */
  get watched(): string[] {
    const uris = new Set<string>();
    for (const listen of this.open.values()) for (const uri of listen.filter.resourceSubscriptions ?? []) uris.add(uri);
    return [...uris];
  }

  add(listen: Listen): () => void {
    const key = keyOf(listen.id);
    this.open.set(key, listen);
    return () => {
      if (this.open.get(key) === listen) this.open.delete(key);
    };
  }

  publish(method: string, params?: Record<string, unknown>): void {
    for (const listen of this.open.values()) {
      const flag = FILTER_KEY.get(method);
      const wanted =
        method === 'notifications/resources/updated'
          ? (listen.filter.resourceSubscriptions ?? []).includes(String(params?.uri))
          : flag !== undefined && listen.filter[flag] === true;
      if (!wanted) continue;
      const meta = {
        ...((params?._meta as Record<string, unknown> | undefined) ?? {}),
        [SUBSCRIPTION_ID_KEY]: listen.id,
      };
      listen.send(Frame.notification(method, { ...params, _meta: meta }));
    }
  }

  /** Ends every stream (the client or the proxy is going away). */
  close(): void {
    const all = [...this.open.values()];
    this.open.clear();
    for (const listen of all) listen.end();
  }
}
