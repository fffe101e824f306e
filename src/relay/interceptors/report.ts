import type { Frame } from '../../wire/frame.js';
import { artifactsOf } from '../events.js';
import type { Call } from '../call.js';
import type { Interceptor } from '../chain.js';
import type { RelayContext } from '../context.js';
import { isInputRequired } from '../results.js';

/**
 * Reports every client's tool call once it ends (metrics, the audit log): which server and tool served it (routing
 * names them in `call.report`), how it ended and how long it took from the client's view. A call answered with
 * input_required is not over: its retry reports it.
 */
export function report({ events }: RelayContext): Interceptor {
  return {
    name: 'report',
    takes: (method, fromClient) => fromClient && method === 'tools/call',
    request(call, next) {
      if (events.heard('call')) {
        // Reported once the answer is on its way: watching does not hold the answer up.
        const started = performance.now();
        call.afterAnswer((answer) => reported(call, started, answer));
      }
      return next(call);
    },
  };

  /** `answer`: the frame the client got, or undefined for a call cancelled (and so not answered). */
  function reported(call: Call, started: number, answer: Frame | undefined): void {
    if (!call.report) return;
    const { result, error } = answer?.message ?? {};
    // An input_required answer is not the end of the call: its retry is reported.
    if (answer && !error && (!result || isInputRequired(result))) return;
    const outcome = !answer || error ? 'failed' : result?.isError === true ? 'error' : 'ok';
    events.emit('call', {
      who: call.session!.who,
      server: call.report.server,
      tool: call.report.tool,
      outcome,
      seconds: (performance.now() - started) / 1000,
      artifacts: artifactsOf(result),
      // What the proxy saved: the answer as the upstream sent it, and as the client got it.
      upstreamBytes: call.upstreamAnswer?.byteLength ?? 0,
      clientBytes: answer?.byteLength ?? 0,
    });
  }
}
