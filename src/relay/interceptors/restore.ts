import { ARTIFACT_URI_PREFIX } from '../../artifacts/metadata.js';
import type { Frame } from '../../wire/frame.js';
import { notSent } from '../results.js';
import type { CallInfo } from '../../pipeline/types.js';
import type { Call } from '../call.js';
import type { Interceptor, Next } from '../chain.js';
import type { RelayContext } from '../context.js';
import { callInfo } from './results.js';

/**
 * A tool call's arguments as the upstream must get them: artifact:// URIs and the stand-ins the pipeline left in a
 * result become the payloads again (pipeline/restore.ts, by the tool's `argumentRefs` rule). A stand-in whose
 * payload can no longer be put back would be written where the payload was: such a call is not sent, and the client
 * is told why.
 */
export function restore({ offload }: RelayContext): Interceptor {
  return {
    name: 'restore',
    takes: (method, fromClient) => fromClient && method === 'tools/call',
    request(call, next) {
      if (!call.upstream || !call.report) return next(call);
      // Most calls name no artifact, which their text tells without serializing the arguments (argumentsAsSent).
      const plain = call.frame.plainText;
      if (plain !== undefined && !plain.includes(ARTIFACT_URI_PREFIX)) return next(call);
      const info = callInfo(call);
      if (offload.argumentsAsSent(info)) return next(call);
      return restored(call, next, info);
    },
  };

  async function restored(call: Call, next: Next, info: CallInfo): Promise<Frame> {
    const resolved = await offload.resolveArguments(info);
    if ('refused' in resolved) return notSent(call.received.id!, resolved.refused);
    if (resolved.args !== info.args) call.frame = call.frame.with(['params', 'arguments'], resolved.args);
    return next(call);
  }
}
