import { textMayHoldHandedOut } from '../../pipeline/handed-out.js';
import { notSent } from '../results.js';
import type { Interceptor } from '../chain.js';
import type { RelayContext } from '../context.js';
import { callInfo } from './results.js';

/**
 * A summary or preview the proxy handed out in place of content is not that content: a tool call that carries one
 * back (`write_file` with what `read_text_file` returned) would write the summary where the file was. Such a call is
 * not sent; the client is told how to make its change instead (relay/offload.ts handedOutIn).
 */
export function writeBack({ offload }: RelayContext): Interceptor {
  return {
    name: 'write-back',
    takes: (method, fromClient) => fromClient && method === 'tools/call',
    request(call, next) {
      if (!call.upstream || !call.report) return next(call);
      // Most calls carry nothing of the kind, which their text tells without a walk of the arguments.
      const plain = call.frame.plainText;
      if (plain !== undefined && !textMayHoldHandedOut(plain)) return next(call);
      const refused = offload.handedOutIn(callInfo(call));
      if (refused === undefined) return next(call);
      return Promise.resolve(notSent(call.received.id!, refused));
    },
  };
}
