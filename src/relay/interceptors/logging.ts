import { Frame } from '../../wire/frame.js';
import type { Interceptor } from '../chain.js';
import type { RelayContext } from '../context.js';
import { logLevelPasses } from '../../protocol/envelope.js';
import type { Upstream } from '../../upstreams/upstream.js';
import { notifiedSession } from './routing.js';

/**
 * Logging both ways. A 2025 client's `logging/setLevel` goes to every upstream of its session (each remembers it
 * for its restarts; a 2026-07-28 upstream gets the level with each request instead), and is answered here. An
 * upstream's log message goes to the client it concerns, its logger prefixed with the server's name when several
 * servers are merged; a 2026-07-28 client hears one only on the stream of a call of its that asked for a level, and
 * only at or above that level.
 */
export function logging(context: RelayContext): Interceptor {
  return {
    name: 'logging',
    takes: (method, fromClient) => fromClient && method === 'logging/setLevel',
    hears: (method, fromClient) => !fromClient && method === 'notifications/message',
    async request(call) {
      const level = String(call.params.level);
      await Promise.all(call.session!.view.upstreams.map((u) => u.setLogLevel(level).catch(() => undefined)));
      return Frame.result(call.received.id!, {});
    },
    notification(note, next) {
      const upstream = note.from as Upstream;
      let frame = note.frame;
      if (context.upstreams.length > 1) {
        const logger =
          typeof note.params.logger === 'string' ? `${upstream.name}/${note.params.logger}` : upstream.name;
        frame = frame.with(['params', 'logger'], logger);
      }
      const session = notifiedSession(context, upstream);
      if (!session) {
        context.log.debug(
          { server: upstream.name, method: note.method },
          'log message from a shared upstream that serves no single client now; not forwarded to any client',
        );
        return;
      }
      if (session.era !== 'modern') {
        note.deliver(session, frame, session.requestServedBy(upstream));
        return next(note);
      }
      let call;
      for (const candidate of session.calls.values()) if (candidate.to === upstream) call = candidate;
      if (!call || !logLevelPasses(note.params.level, call.envelope.logLevel)) return;
      note.deliver(session, frame, call.received.id ?? undefined);
      next(note);
    },
  };
}
