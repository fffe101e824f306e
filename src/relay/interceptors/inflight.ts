import type { Interceptor } from '../chain.js';
import type { RelayContext } from '../context.js';

/**
 * Counts the clients' requests in flight, so a graceful shutdown waits for them (the gateway's drain). A 2026-07-28
 * listen stream is no work in flight: it would hold every shutdown for its whole grace.
 */
export function inflight({ inflight: counter }: RelayContext): Interceptor {
  return {
    name: 'inflight',
    takes: (method, fromClient) => fromClient && method !== 'subscriptions/listen',
    request(call, next) {
      // Over once its answer is on its way (a shutdown that waits for it then lets the answer go out).
      call.afterAnswer(counter.begin());
      return next(call);
    },
  };
}
