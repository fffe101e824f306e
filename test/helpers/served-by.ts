import type { RequestId } from '@modelcontextprotocol/server';
import type { Gateway } from '../../src/gateway/gateway.js';

/** Which path served a gateway's calls, recorded from its sessions (for the tests of the lean paths). */
export interface ServedBy {
  /** The requests the SDK's server dispatched (an entry's own answers, such as refusals, never get this far). */
  sdkServed: RequestId[];
  /** The calls the relay lane took (the rest of those taken past the SDK went to the session's handler). */
  laneTaken: RequestId[];
  clear(): void;
}

/** Records, from now on, which requests of `gateway`'s sessions the SDK dispatched and which the relay lane took. */
export function recordServedBy(gateway: Gateway): ServedBy {
  const served: ServedBy = {
    sdkServed: [],
    laneTaken: [],
    clear: () => {
      served.sdkServed.length = 0;
      served.laneTaken.length = 0;
    },
  };
  const create = gateway.createSession.bind(gateway);
  gateway.createSession = (identity, kind) => {
    const session = create(identity, kind);
    const handler = session.server.fallbackRequestHandler!;
    session.server.fallbackRequestHandler = (request, ctx) => {
      served.sdkServed.push(request.id);
      return handler(request, ctx);
    };
    const relayCall = session.relayCall.bind(session);
    session.relayCall = (request, answer, envelope) => {
      const cancel = relayCall(request, answer, envelope);
      if (cancel) served.laneTaken.push(request.id);
      return cancel;
    };
    return session;
  };
  return served;
}
