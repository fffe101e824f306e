import { Frame } from '../../wire/frame.js';
import type { Call } from '../call.js';
import type { Interceptor, Next } from '../chain.js';
import type { RelayContext } from '../context.js';
import { SUBSCRIPTION_ID_KEY } from '../../protocol/envelope.js';
import { Codes, RpcError } from '../../rpc/errors.js';
import type { ListenFilter } from '../listens.js';
import type { Upstream } from '../../upstreams/upstream.js';
import { isOurArtifact, resourceOwner } from './routing.js';
import { textIn } from '../param-text.js';

/** The requests this interceptor answers or routes itself. */
const SUBSCRIPTION_METHODS = new Set(['resources/subscribe', 'resources/unsubscribe', 'subscriptions/listen']);

/** Listen streams one client may keep open (the SDK's entry allows as many per connection). */
const MAX_LISTENS = 1024;

/**
 * Resource subscriptions in both eras. A 2025 client subscribes with `resources/subscribe` (sent to the upstream
 * that serves the URI, and remembered for its restarts); a 2026-07-28 client opens `subscriptions/listen` streams,
 * which hear the list changes and resource updates their filter names (the proxy subscribes upstream for the URIs
 * while a stream wants them). An upstream's resource update goes to every client that asked for that URI.
 */
export function subscriptions(context: RelayContext): Interceptor {
  return {
    name: 'subscriptions',
    takes: (method, fromClient) => fromClient && SUBSCRIPTION_METHODS.has(method),
    hears: (method, fromClient) => !fromClient && method === 'notifications/resources/updated',
    request(call, next) {
      switch (call.method) {
        case 'resources/subscribe':
        case 'resources/unsubscribe':
          return subscribe(context, call, next);
        case 'subscriptions/listen':
          return listen(context, call);
        default:
          return next(call);
      }
    },
    notification(note, next) {
      const upstream = note.from as Upstream;
      const uri = String(note.params.uri);
      for (const session of context.sessions) {
        if (!session.view.serves(upstream) || session.kind.transient) continue;
        if (session.era === 'modern') void session.notify(note.method, note.params);
        else if (session.isSubscribed(uri)) note.deliver(session);
      }
      // 2026-07-28 clients over HTTP listen to the shared connections.
      if (context.upstreams.includes(upstream)) context.sharedChange(note.method, note.params, upstream.name);
      next(note);
    },
  };
}

async function subscribe(context: RelayContext, call: Call, next: Next): Promise<Frame> {
  const uri = textIn(call.frame, call.params.uri);
  const session = call.session!;
  const subscribing = call.method === 'resources/subscribe';
  // Artifacts never change (they are named by their content): nothing to send, only to check.
  if (isOurArtifact(session.view, uri)) {
    if (subscribing) await context.offload.owned(uri, session.owner);
    return Frame.result(call.received.id!, {});
  }
  const upstream = resourceOwner(session.view, uri);
  call.to = upstream;
  if (!subscribing) {
    session.unsubscribe(uri);
    upstream.trackSubscription(uri, false);
    return next(call);
  }
  const answer = await next(call);
  if (!answer.isError) {
    upstream.trackSubscription(uri, true);
    session.subscribe(uri);
  }
  return answer;
}

/**
 * A 2026-07-28 `subscriptions/listen`: acknowledged first (with what the proxy can deliver of the filter), then
 * open until the client cancels it or goes away; when the proxy ends it (shutdown), it is answered with a completion
 * result.
 */
async function listen(context: RelayContext, call: Call): Promise<Frame> {
  const session = call.session!;
  const id = call.received.id!;
  if (session.listens.size >= MAX_LISTENS) throw new RpcError(Codes.InternalError, 'Subscription limit reached');
  // Restored: the filter outlives the request's frame, and what it names is sent back in new messages.
  const asked = (call.frame.blobs.restore(call.params.notifications) ?? {}) as ListenFilter;
  const capabilities = context.capabilities(session.view.upstreams);
  const filter: ListenFilter = {
    ...(asked.toolsListChanged === true ? { toolsListChanged: true } : {}),
    ...(asked.promptsListChanged === true && capabilities.prompts ? { promptsListChanged: true } : {}),
    ...(asked.resourcesListChanged === true && capabilities.resources ? { resourcesListChanged: true } : {}),
    ...(Array.isArray(asked.resourceSubscriptions) && capabilities.resources?.subscribe
      ? { resourceSubscriptions: asked.resourceSubscriptions.filter((uri) => typeof uri === 'string') }
      : {}),
  };
  const send = (frame: Frame) => void session.send(frame, { related: id });
  send(
    Frame.notification('notifications/subscriptions/acknowledged', {
      _meta: { [SUBSCRIPTION_ID_KEY]: id },
      notifications: filter,
    }),
  );
  const unwatch = context.resourceWatch.watch(filter.resourceSubscriptions ?? []);
  return new Promise<Frame>((resolve, reject) => {
    const remove = session.listens.add({
      id,
      filter,
      send,
      end: () => {
        unwatch();
        resolve(Frame.result(id, { resultType: 'complete', _meta: { [SUBSCRIPTION_ID_KEY]: id } }));
      },
    });
    const { cancellation } = call;
    cancellation.listen(() => {
      remove();
      unwatch();
      reject(cancellation.reason instanceof Error ? cancellation.reason : new Error(String(cancellation.reason)));
    });
  });
}
