import type { CallToolResult, Progress, Result } from '@modelcontextprotocol/server';
import { ClientError, unavailable } from '../upstreams/errors.js';
import type { ForwardOptions, Upstream, UpstreamReply } from '../upstreams/upstream.js';
import { Blobs } from '../transports/blob-set.js';
import type { Catalog } from './catalog.js';
import type { SessionView } from './session-view.js';
import type { RequestContext, RequestHandler } from './context.js';
import type { Offload } from './offload.js';
import { ARTIFACT_URI_PREFIX } from '../artifacts/metadata.js';
import { page } from './pagination.js';
import type { GatewayEvents } from './events.js';
import { announceArtifacts, callReport, isToolResult } from './relay-lane.js';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { InputBridge } from './input-bridge.js';
import { fulfilInputRounds, isInputRequired, type RetryMaterial } from './input-rounds.js';

export interface HandlerDeps {
  pageSize: number;
  offload: Offload;
  events: GatewayEvents;
  /** Holds a legacy upstream's calls for modern clients between their requests (input-bridge.ts). */
  bridge: InputBridge;
}

type Params = Record<string, unknown>;

/** The `server` label of the proxy's own tools in metrics. */
export const BUILTIN_SERVER = 'mcp-offload';

/**
 * The routes from a client's request to the upstream that serves it. Each handler is small:
 * find the owner, restore the upstream's own name, forward, hand the result back unchanged.
 * What a session sees and where its requests go is its own view (session-view.ts).
 */
export function createHandlers(deps: HandlerDeps): Record<string, RequestHandler> {
  const { offload, bridge } = deps;

  /**
   * A call that may ask the client for input on the way (tools/call, prompts/get, resources/read), whatever the
   * eras of the two sides: a modern client's call goes through the bridge, which turns a legacy upstream's questions
   * into input_required results and passes a modern upstream's on; a legacy client is asked a modern upstream's
   * questions as real requests (input-rounds.ts).
   */
  const exchange = async (context: RequestContext, upstream: Upstream, newParams: Params): Promise<UpstreamReply> => {
    if (context.session.era === 'modern') {
      const state = context.extra.mcpReq.requestState();
      if (bridge.owns(state)) return bridge.resume(context, state);
      bridge.checkRetry(context, upstream, state);
      const params = { ...newParams, ...retryMaterial(context) };
      return bridge.start(context, upstream, (signal, onprogress) =>
        forwardWithBlobs(context, upstream, params, { signal, onprogress }),
      );
    }
    const reply = await forwardWithBlobs(context, upstream, newParams);
    if (!isInputRequired(reply.result)) return reply;
    return fulfilInputRounds(context, reply, (material) =>
      forwardWithBlobs(context, upstream, { ...newParams, ...material }),
    );
  };

  /** The proxy's own items come first in tools/list and after the upstreams' in the resource lists. */
  const list =
    (
      key: keyof Catalog['snapshot'],
      own: (context: RequestContext) => readonly unknown[],
      ownFirst = false,
    ): RequestHandler =>
    async (context) => {
      const { catalog } = context.session.view;
      const mine = own(context);
      const all =
        mine.length === 0
          ? catalog.snapshot[key]
          : ownFirst
            ? [...mine, ...catalog.snapshot[key]]
            : [...catalog.snapshot[key], ...mine];
      const { items, nextCursor } = page<unknown>(all, params(context.request).cursor, deps.pageSize);
      return { [key]: items, ...(nextCursor ? { nextCursor } : {}) };
    };
  const none = () => [];

  return {
    'tools/list': list('tools', () => offload.builtinTools, true),
    'prompts/list': list('prompts', none),
    'resources/list': list('resources', ({ session }) => offload.sessionResources(session.owner)),
    'resources/templates/list': list('resourceTemplates', () => offload.templates),

    'tools/call': async (context) => {
      const p = params(context.request);
      const name = String(p.name);
      const { session } = context;
      if (offload.isBuiltin(name)) {
        const reportBuiltin = callReport(deps.events, session, BUILTIN_SERVER, name);
        const result = await offload.callBuiltin(name, (p.arguments ?? {}) as Params, session);
        reportBuiltin(result.isError ? 'error' : 'ok');
        return result;
      }
      let route = session.view.catalog.tool(name);
      if (!route) {
        // A server waiting for a login lists no tools: its calls get the command, or go through once it is done.
        const waiting = session.view.catalog.waitingForLogin(name);
        if (waiting && (await waiting.loginWritten())) route = session.view.catalog.tool(name);
        if (!route && waiting) throw unavailable(waiting.lastError ?? `upstream "${waiting.name}" needs a login`);
        if (!route) throw new ClientError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
      }
      const { name: server } = route.upstream;
      const report = callReport(deps.events, session, server, route.original);
      const call = {
        server,
        tool: route.original,
        args: p.arguments as Params | undefined,
        owner: session.owner,
        links: session.identity.links,
        client: context.envelope.clientInfo ?? session.clientInfo,
      };
      let processed: Result;
      let blobs = Blobs.NONE;
      try {
        const resolved = await offload.resolveArguments(call);
        if ('refused' in resolved) {
          report('error');
          return {
            content: [{ type: 'text', text: `mcp-offload did not send this call: ${resolved.refused}` }],
            isError: true,
          };
        }
        const { args } = resolved;
        const reply = await exchange(context, route.upstream, {
          ...p,
          name: route.original,
          ...(args !== undefined ? { arguments: args } : {}),
        });
        blobs = reply.blobs;
        const { result } = reply;
        // A request for input is no result yet: it reaches the client as it is, and the call is reported once done.
        if (isInputRequired(result)) return blobs.deliver(result);
        processed = blobs.deliver(isToolResult(result) ? await offload.processResult(result, call, blobs) : result);
      } catch (error) {
        report('failed');
        throw error;
      } finally {
        blobs.dispose();
      }
      report((processed as CallToolResult).isError ? 'error' : 'ok', processed);
      announceArtifacts(session, offload, processed);
      return processed;
    },

    'prompts/get': async (context) => {
      const p = params(context.request);
      const route = context.session.view.catalog.prompt(String(p.name));
      if (!route) throw new ClientError(ProtocolErrorCode.InvalidParams, `Prompt ${String(p.name)} not found`);
      const { result, blobs } = await exchange(context, route.upstream, { ...p, name: route.original });
      return blobs.deliver(result);
    },

    'resources/read': async (context) => {
      const uri = String(params(context.request).uri);
      const { view } = context.session;
      if (isOurArtifact(view, uri)) return offload.read(uri, context.session);
      const { result, blobs } = await exchange(context, resourceOwner(view, uri), params(context.request));
      return blobs.deliver(result);
    },

    'resources/subscribe': async (context) => {
      const uri = String(params(context.request).uri);
      const { view } = context.session;
      // Artifacts never change (they are named by their content): nothing to send, only to check.
      if (isOurArtifact(view, uri)) {
        await offload.owned(uri, context.session.owner);
        return {};
      }
      const upstream = resourceOwner(view, uri);
      const result = await forward(context, upstream);
      upstream.trackSubscription(uri, true);
      context.session.subscribe(uri);
      return result;
    },

    'resources/unsubscribe': async (context) => {
      const uri = String(params(context.request).uri);
      const { view } = context.session;
      if (isOurArtifact(view, uri)) return {};
      const upstream = resourceOwner(view, uri);
      context.session.unsubscribe(uri);
      upstream.trackSubscription(uri, false);
      return forward(context, upstream);
    },

    'completion/complete': async (context) => {
      const p = params(context.request);
      const ref = (p.ref ?? {}) as { type?: string; name?: string; uri?: string };
      const { view } = context.session;
      const { catalog } = view;
      if (ref.type === 'ref/prompt') {
        const route = catalog.prompt(String(ref.name));
        if (!route) throw new ClientError(ProtocolErrorCode.InvalidParams, `Prompt ${String(ref.name)} not found`);
        return forward(context, route.upstream, { ...p, ref: { ...ref, name: route.original } });
      }
      const upstream = catalog.templateOwner(String(ref.uri)) ?? resourceOwner(view, ref.uri);
      return forward(context, upstream);
    },

    'tasks/get': (context) => taskRequest(context, offload, 'inlined'),
    'tasks/result': (context) => taskRequest(context, offload, 'whole'),
    'tasks/cancel': (context) => taskRequest(context, offload),
    'tasks/update': (context) => taskRequest(context, offload),

    'logging/setLevel': async ({ request, session }) => {
      const level = String(params(request).level);
      await Promise.all(session.view.upstreams.map((u) => u.setLogLevel(level).catch(() => undefined)));
      return {};
    },
  };
}

/**
 * Sends the client's request to the upstream with the client's progress token re-attached to
 * progress on the way back (the SDK replaces it with its own on the way out). The result waits
 * for the progress sent before it, so the client never sees progress after its result.
 */
export async function forward(context: RequestContext, upstream: Upstream, newParams?: Params): Promise<Result> {
  const { result, blobs } = await forwardWithBlobs(context, upstream, newParams);
  return blobs.deliver(result);
}

/**
 * As `forward`, with the payloads the answer carried as bytes: the caller delivers them. `control` replaces the
 * request's own signal and progress route, for a call that outlives the request (input-bridge.ts).
 */
async function forwardWithBlobs(
  context: RequestContext,
  upstream: Upstream,
  newParams?: Params,
  control?: { signal: AbortSignal; onprogress: (progress: Progress) => void },
): Promise<UpstreamReply> {
  const { request, extra, session } = context;
  const clientToken = extra.mcpReq._meta?.progressToken;
  let progressSent: Promise<void> = Promise.resolve();
  const onprogress = (progress: Progress) => {
    if (clientToken === undefined) return;
    progressSent = extra.mcpReq
      .notify({ method: 'notifications/progress', params: { ...progress, progressToken: clientToken } })
      .catch(() => undefined);
  };
  session.routeTo(context, upstream);
  // Who asks goes with the request; the upstream connection sends what its era allows of it.
  const options: ForwardOptions = {
    signal: control?.signal ?? extra.mcpReq.signal,
    onprogress: control?.onprogress ?? onprogress,
    envelope: context.envelope,
  };
  const reply = await upstream.request(request.method, newParams ?? (request.params as Params | undefined), options);
  await progressSent;
  return reply;
}

/**
 * A request about a task (the tasks extension) goes to the connection that started it. A task's final result is
 * its tool's result and goes through the pipeline as one: inlined in a completed task's `tasks/get` answer
 * (`result`, the modern era) or as the whole `tasks/result` answer (the legacy era).
 */
async function taskRequest(
  context: RequestContext,
  offload: Offload,
  toolResult?: 'inlined' | 'whole',
): Promise<Result> {
  const taskId = String(params(context.request).taskId);
  const { session } = context;
  const upstreams = session.view.upstreams;
  const upstream =
    upstreams.find((u) => u.tasks.toolOf(taskId) !== undefined) ?? (upstreams.length === 1 ? upstreams[0] : undefined);
  if (!upstream) throw new ClientError(ProtocolErrorCode.InvalidParams, `Task ${taskId} not found`);
  const tool = upstream.tasks.toolOf(taskId);
  const reply = await forwardWithBlobs(context, upstream);
  const { result, blobs } = reply;
  try {
    if (toolResult === undefined || tool === undefined) return blobs.deliver(result);
    const call = {
      server: upstream.name,
      tool,
      owner: session.owner,
      links: session.identity.links,
      client: context.envelope.clientInfo ?? session.clientInfo,
    };
    if (toolResult === 'whole')
      return blobs.deliver(isToolResult(result) ? await offload.processResult(result, call, blobs) : result);
    const inlined = (result as { status?: unknown; result?: Result }).result;
    if (inlined === undefined || !isToolResult(inlined)) return blobs.deliver(result);
    return blobs.deliver({ ...result, result: await offload.processResult(inlined, call, blobs) });
  } finally {
    blobs.dispose();
  }
}

/**
 * A modern client's retry fields, which the SDK lifts out of the params: put back for a modern upstream, whose
 * requestState goes back byte for byte.
 */
function retryMaterial(context: RequestContext): RetryMaterial {
  const { inputResponses } = context.extra.mcpReq;
  const requestState = context.extra.mcpReq.requestState();
  return {
    ...(inputResponses !== undefined ? { inputResponses } : {}),
    ...(typeof requestState === 'string' ? { requestState } : {}),
  };
}

function resourceOwner(view: SessionView, uri: unknown): Upstream {
  const owner = view.resourceServer(String(uri));
  if (owner) return owner;
  if (view.upstreams.length === 1) return view.upstreams[0];
  throw new ClientError(ProtocolErrorCode.InvalidParams, `Resource ${String(uri)} not found`);
}

/**
 * An artifact:// URI no upstream listed is ours; whether it exists or belongs to another session,
 * the answer is the same "not found", so ids leak nothing. (An upstream may have artifact:// URIs of
 * its own; those it listed, or that match its templates, still go to it.)
 */
function isOurArtifact(view: SessionView, uri: string): boolean {
  return uri.startsWith(ARTIFACT_URI_PREFIX) && view.catalog.resourceOwner(uri) === undefined;
}

/** A tool result the pipeline can work on (not, e.g., a task handle). */

function params(request: { params?: unknown }): Params {
  return (request.params ?? {}) as Params;
}
