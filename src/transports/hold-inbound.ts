import type { JSONRPCMessage, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';
import type { TransportHooks } from './decorated-transport.js';

/** What holdInbound gives: the hooks for a DecoratedTransport, the first message, and the release. */
export interface InboundHold {
  hooks: TransportHooks;
  /** The first message that came in; undefined if the transport closed before one did. */
  first: Promise<JSONRPCMessage | undefined>;
  /** Passes on what was held, in order, and everything after it as it comes. */
  open(): void;
}

/**
 * Keeps a transport's incoming messages from whatever reads them until open(), while the first is already
 * known: the stdio entry reads the client's `initialize` before the upstreams connect, so they are started as
 * that client rather than started and then started again (cli/run.ts).
 */
export function holdInbound(): InboundHold {
  let decorated: Transport | undefined;
  let held: [JSONRPCMessage, MessageExtraInfo | undefined][] | undefined = [];
  let sawFirst!: (message: JSONRPCMessage | undefined) => void;
  const first = new Promise<JSONRPCMessage | undefined>((resolve) => (sawFirst = resolve));
  return {
    first,
    hooks: {
      attached: (transport) => (decorated = transport),
      inbound(message, extra) {
        if (!held) return message;
        sawFirst(message);
        held.push([message, extra]);
        return undefined;
      },
      closed: () => sawFirst(undefined),
    },
    open() {
      const queue = held ?? [];
      held = undefined;
      for (const [message, extra] of queue) decorated?.onmessage?.(message, extra);
    },
  };
}
