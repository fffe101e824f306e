import type { Frame } from '../../wire/frame.js';
import { artifactsOf } from '../events.js';
import type { Call } from '../call.js';
import type { Interceptor, Next } from '../chain.js';
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
      return events.heard('call') ? reported(call, next) : next(call);
    },
  };

  async function reported(call: Call, next: Next): Promise<Frame> {
    const started = performance.now();
    const emit = (outcome: 'ok' | 'error' | 'failed', answer?: Frame) => {
      if (!call.report) return;
      events.emit('call', {
        who: call.session!.who,
        server: call.report.server,
        tool: call.report.tool,
        outcome,
        seconds: (performance.now() - started) / 1000,
        artifacts: artifactsOf(answer?.message.result),
        // What the proxy saved: the answer as the upstream sent it, and as the client got it.
        upstreamBytes: call.upstreamAnswer?.byteLength ?? 0,
        clientBytes: answer?.byteLength ?? 0,
      });
    };
    let answer;
    try {
      answer = await next(call);
    } catch (error) {
      emit('failed');
      throw error;
    }
    const { result, error } = answer.message;
    if (error) emit('failed', answer);
    else if (result && !isInputRequired(result)) emit(result.isError === true ? 'error' : 'ok', answer);
    return answer;
  }
}
