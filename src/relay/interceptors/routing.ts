import { ARTIFACT_URI_PREFIX } from '../../artifacts/metadata.js';
import type { Tool } from '@modelcontextprotocol/server';
import type { Routed } from '../catalog.js';
import type { SessionView } from '../session-view.js';
import type { Upstream } from '../../upstreams/upstream.js';
import type { Call } from '../call.js';
import type { Interceptor } from '../chain.js';
import type { RelayContext } from '../context.js';
import { Codes, RpcError, unavailable } from '../../rpc/errors.js';
import type { Session } from '../session.js';
import { bridgedQuestion } from './eras.js';
import { quoted, textIn } from '../param-text.js';

const TASK_METHODS = new Set(['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/update']);

/**
 * Where each message goes. A client's request goes to the upstream that serves its tool, prompt, resource or task
 * (under the name that upstream knows it by); a method the gateway does not know goes to a lone upstream as it is.
 * An upstream's question goes to the one client it can be for; its notifications to the client they concern. A
 * client's roots change goes to the connections that speak for it.
 */
export function routing(context: RelayContext): Interceptor {
  return {
    name: 'routing',
    request(call, next) {
      if (call.to) return next(call);
      if (!call.fromClient) {
        // A question asked during a 2026-07-28 client's call goes to that call, held for the client's retry.
        const bridged = bridgedQuestion(context, call);
        if (bridged) return bridged;
        return askedSession(context, call).then((session) => {
          call.to = session;
          return next(call);
        });
      }
      const waiting = route(call);
      return waiting ? waiting.then(() => next(call)) : next(call);
    },
    notification(note, next) {
      if (note.deliveries.length > 0) return next(note);
      if (note.from.side === 'client') {
        if (note.method === 'notifications/roots/list_changed') {
          const session = note.from;
          for (const upstream of session.view.upstreams)
            if (context.oneClient || context.ownerOf(upstream) === session) note.deliver(upstream);
        } else {
          context.log.debug({ method: note.method, session: note.from.id }, 'client notification not forwarded');
        }
        return next(note);
      }
      const upstream = note.from;
      const session = notifiedSession(context, upstream);
      if (session && session.era !== 'modern') note.deliver(session, note.frame, session.requestServedBy(upstream));
      else
        context.log.debug(
          { server: upstream.name, method: note.method },
          'notification from a shared upstream that serves no single client now; not forwarded to any client',
        );
      next(note);
    },
  };
}

/**
 * Routes a client's request: `call.to`, the name the upstream knows, and what the call is reported as. A promise only
 * when it has to wait (for a login in progress), so that a call routed at once takes no turn of the event loop.
 */
function route(call: Call): Promise<void> | undefined {
  const session = call.session!;
  const { view } = session;
  const { catalog } = view;
  const params = call.params;
  const text = (value: unknown) => textIn(call.frame, value);
  switch (call.method) {
    case 'tools/call': {
      const name = text(params.name);
      const found = catalog.tool(name);
      if (found) return toTool(call, found);
      // A server waiting for a login lists no tools: its calls get the command, or go through once it is done.
      const waiting = catalog.waitingForLogin(name);
      if (waiting) {
        return waiting.loginWritten().then((written) => {
          const after = written ? catalog.tool(name) : undefined;
          if (!after) throw unavailable(waiting.lastError ?? `upstream "${waiting.name}" needs a login`);
          toTool(call, after);
        });
      }
      // A lone server answers for names it did not list, as it would directly (an isError result, say).
      if (view.upstreams.length === 1) return lone(call, view.upstreams[0]!, name);
      throw new RpcError(Codes.InvalidParams, `Tool ${quoted(name)} not found`);
    }
    case 'prompts/get': {
      const name = text(params.name);
      const found = catalog.prompt(name);
      if (!found && view.upstreams.length === 1) return lone(call, view.upstreams[0]!, name);
      if (!found) throw new RpcError(Codes.InvalidParams, `Prompt ${quoted(name)} not found`);
      call.to = found.upstream;
      if (found.original !== params.name) call.frame = call.frame.with(['params', 'name'], found.original);
      return;
    }
    case 'resources/read':
      call.to = resourceOwner(view, text(params.uri));
      return;
    case 'completion/complete': {
      const ref = (params.ref ?? {}) as { type?: string; name?: unknown; uri?: unknown };
      if (ref.type === 'ref/prompt') {
        const name = text(ref.name);
        const found = catalog.prompt(name);
        if (!found) throw new RpcError(Codes.InvalidParams, `Prompt ${quoted(name)} not found`);
        call.to = found.upstream;
        if (found.original !== ref.name)
          call.frame = call.frame.with(['params', 'ref'], { ...ref, name: found.original });
        return;
      }
      const uri = text(ref.uri);
      call.to = catalog.templateOwner(uri) ?? resourceOwner(view, uri);
      return;
    }
    default:
  }
  if (TASK_METHODS.has(call.method)) {
    const taskId = text(params.taskId);
    const upstreams = view.upstreams;
    const owner =
      upstreams.find((u) => u.tasks.toolOf(taskId) !== undefined) ??
      (upstreams.length === 1 ? upstreams[0] : undefined);
    if (!owner) throw new RpcError(Codes.InvalidParams, `Task ${quoted(taskId)} not found`);
    call.to = owner;
    return;
  }
  // A method the gateway does not know goes to a lone upstream as it is: it may know it even if we do not.
  if (view.upstreams.length === 1) {
    call.to = view.upstreams[0];
    return;
  }
  throw new RpcError(Codes.MethodNotFound, `Method not found: ${call.method}`);
}

/** A tool call to the upstream that listed the tool, under the name it listed it by. */
function toTool(call: Call, found: Routed<Tool>): undefined {
  call.to = found.upstream;
  call.report = { server: found.upstream.name, tool: found.original };
  if (found.original !== call.params.name) call.frame = call.frame.with(['params', 'name'], found.original);
  return undefined;
}

/** A call to a name the lone upstream did not list goes to it as it is. */
function lone(call: Call, upstream: Upstream, name: string): undefined {
  call.to = upstream;
  call.report = { server: upstream.name, tool: name };
  return undefined;
}

/** The connection serving `uri`: the one that listed it or has a matching template, else the one with resources. */
export function resourceOwner(view: SessionView, uri: string): Upstream {
  const owner = view.resourceServer(uri);
  if (owner) return owner;
  if (view.upstreams.length === 1) return view.upstreams[0]!;
  throw new RpcError(Codes.InvalidParams, `Resource ${quoted(uri)} not found`);
}

/**
 * An artifact:// URI no upstream listed is ours; whether it exists or belongs to another session, the answer is the
 * same "not found", so ids leak nothing. (An upstream may have artifact:// URIs of its own; those it listed, or that
 * match its templates, still go to it.)
 */
export function isOurArtifact(view: SessionView, uri: string): boolean {
  return uri.startsWith(ARTIFACT_URI_PREFIX) && view.catalog.resourceOwner(uri) === undefined;
}

/**
 * The client an upstream's request is for, known exactly, never guessed: the session a connection was opened for;
 * in one-client mode the client; on a shared connection the one client whose calls it is serving (a 2026-07-28
 * client's call the question is bridged into included: eras.ts). When a shared connection serves calls of several
 * clients, or none, nobody can know, and the upstream is told so.
 */
async function askedSession(context: RelayContext, call: Call): Promise<Session> {
  const upstream = call.upstream!;
  const method = call.method;
  const owner = context.ownerOf(upstream);
  if (owner) return owner;
  if (context.oneClient) {
    // A server asks for roots as soon as it is initialized, which may be before the client is there.
    if (!context.theClient()) await context.clientConnected(call.cancellation);
    const client = context.theClient();
    if (client) return client;
    throw new RpcError(
      Codes.InternalError,
      `no MCP client is connected to answer ${method} from upstream "${upstream.name}"`,
    );
  }
  const serving = sessionsServedBy(context, upstream);
  context.pools.find((pool) => pool.isShared(upstream))?.sharedAsked(method);
  if (serving.length === 1) return serving[0]!;
  const calls =
    serving.length === 0
      ? 'no call of any client is in flight on it'
      : `calls of ${serving.length} clients are in flight on it`;
  throw new RpcError(
    Codes.InvalidRequest,
    `mcp-offload cannot tell which client ${method} is for: upstream "${upstream.name}" serves its clients on one shared connection and ${calls}. ` +
      `Set "isolation: session" for server "${upstream.name}" in the mcp-offload config to give every client a connection of its own.`,
  );
}

/** Sessions with a request in flight on this connection. */
function sessionsServedBy(context: RelayContext, upstream: Upstream): Session[] {
  return [...context.sessions].filter((session) => session.requestServedBy(upstream) !== undefined);
}

/** The client an upstream's notification concerns: the session it was opened for, the one client, or the one served. */
export function notifiedSession(context: RelayContext, upstream: Upstream): Session | undefined {
  const owner = context.ownerOf(upstream);
  if (owner) return owner;
  if (context.oneClient) return context.theClient();
  const serving = sessionsServedBy(context, upstream);
  return serving.length === 1 ? serving[0] : undefined;
}
