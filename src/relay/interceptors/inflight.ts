import type { Frame } from '../../wire/frame.js';
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
      const end = counter.begin();
      let answer: Promise<Frame>;
      try {
        answer = next(call);
      } catch (error) {
        end();
        throw error;
      }
      answer.then(end, end);
      return answer;
    },
  };
}
