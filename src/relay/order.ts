import type { Interceptor } from './chain.js';
import type { RelayContext } from './context.js';
import { guard } from './interceptors/guard.js';
import { tracing } from './interceptors/tracing.js';
import { inflight } from './interceptors/inflight.js';
import { report } from './interceptors/report.js';
import { handshake } from './interceptors/handshake.js';
import { logging } from './interceptors/logging.js';
import { disclosure } from './interceptors/disclosure.js';
import { lists } from './interceptors/lists.js';
import { subscriptions } from './interceptors/subscriptions.js';
import { artifacts } from './interceptors/artifacts.js';
import { routing } from './interceptors/routing.js';
import { questions } from './interceptors/questions.js';
import { results } from './interceptors/results.js';
import { writeBack } from './interceptors/write-back.js';
import { restore } from './interceptors/restore.js';
import { eras } from './interceptors/eras.js';

/**
 * The interceptors every message passes, outermost first. A request runs down the list to the terminal (which sends
 * it where routing said) and its answer comes back up; a notification runs down once. Adding a cross-cutting concern
 * is one file in interceptors/ and one line here.
 */
export function interceptors(context: RelayContext): Interceptor[] {
  return [
    // Refuses what is not a request at all, before anything else reads it.
    guard,
    // One span per client request (when tracing is on): outside everything else, so the span covers all the proxy
    // does with the request, and the call carries the span for the children the pipeline and the terminal make.
    tracing(context),
    // Counts client requests in flight, so a graceful shutdown waits for them (and for what the rest does).
    inflight(context),
    // Times each tool call from the client's view and reports how it ended (metrics, audit log).
    report(context),
    // The client's era: the 2025 handshake, the 2026-07-28 envelope and server/discover, ping, cancellation.
    handshake(context),
    // logging/setLevel goes to every upstream of the session; upstream log messages go to the client they concern.
    logging(context),
    // Progressive tool disclosure: meta-tools instead of the catalog, and call_tool made the call it names. Before
    // lists (it answers tools/list itself) and before artifacts and routing (a call_tool call goes on as the call of
    // the tool it names, the proxy's own tools included, down the one path every call takes).
    disclosure(context),
    // Lists are the merged catalog's (names prefixed, the proxy's own tools first), served in pages.
    lists(context),
    // resources/subscribe and the 2026-07-28 subscriptions/listen streams; resource updates to who asked.
    subscriptions(context),
    // The proxy's own tools and artifact:// resources, answered here.
    artifacts(context),
    // Which upstream a client request goes to (and under which name), and which client an upstream's question does.
    routing(context),
    // An upstream's question goes to a client that can answer it, once its handshake is done.
    questions(context),
    // Tool results through the artifact pipeline: what floods the context is stored and summarized.
    results(context),
    // A summary or preview the proxy handed out, carried back in a call's arguments, stops the call: written, it would
    // replace the content. Before restore, which may put back payloads that quote such text on purpose.
    writeBack(context),
    // artifact:// URIs and stand-ins in a call's arguments become the payloads again before the upstream sees them.
    restore(context),
    // The two eras meet: envelopes, input_required rounds, questions held for a 2026-07-28 client, result shapes.
    eras(context),
  ];
}
