import { ErrorCode, type Progress, type Result } from '@modelcontextprotocol/sdk/types.js';
import { ClientError } from '../upstreams/errors.js';
import type { Upstream } from '../upstreams/upstream.js';
import type { Catalog } from './catalog.js';
import type { RequestContext, RequestHandler } from './context.js';
import { page } from './pagination.js';

export interface HandlerDeps {
  catalog: Catalog;
  upstreams: readonly Upstream[];
  pageSize: number;
}

type Params = Record<string, unknown>;

/**
 * The routes from a client's request to the upstream that serves it. Each handler is small:
 * find the owner, restore the upstream's own name, forward, hand the result back unchanged.
 */
export function createHandlers(deps: HandlerDeps): Record<string, RequestHandler> {
  const { catalog } = deps;

  const list =
    (key: keyof Catalog['snapshot']): RequestHandler =>
    async ({ request }) => {
      const { items, nextCursor } = page<unknown>(catalog.snapshot[key], params(request).cursor, deps.pageSize);
      return { [key]: items, ...(nextCursor ? { nextCursor } : {}) };
    };

  return {
    'tools/list': list('tools'),
    'prompts/list': list('prompts'),
    'resources/list': list('resources'),
    'resources/templates/list': list('resourceTemplates'),

    'tools/call': async (context) => {
      const p = params(context.request);
      const route = catalog.tool(String(p.name));
      if (!route) throw new ClientError(ErrorCode.InvalidParams, `Tool ${String(p.name)} not found`);
      return forward(context, route.upstream, { ...p, name: route.original });
    },

    'prompts/get': async (context) => {
      const p = params(context.request);
      const route = catalog.prompt(String(p.name));
      if (!route) throw new ClientError(ErrorCode.InvalidParams, `Prompt ${String(p.name)} not found`);
      return forward(context, route.upstream, { ...p, name: route.original });
    },

    'resources/read': async (context) => forward(context, resourceOwner(deps, params(context.request).uri)),

    'resources/subscribe': async (context) => {
      const uri = String(params(context.request).uri);
      const upstream = resourceOwner(deps, uri);
      const result = await forward(context, upstream);
      upstream.trackSubscription(uri, true);
      context.session.subscribe(uri);
      return result;
    },

    'resources/unsubscribe': async (context) => {
      const uri = String(params(context.request).uri);
      const upstream = resourceOwner(deps, uri);
      context.session.unsubscribe(uri);
      upstream.trackSubscription(uri, false);
      return forward(context, upstream);
    },

    'completion/complete': async (context) => {
      const p = params(context.request);
      const ref = (p.ref ?? {}) as { type?: string; name?: string; uri?: string };
      if (ref.type === 'ref/prompt') {
        const route = catalog.prompt(String(ref.name));
        if (!route) throw new ClientError(ErrorCode.InvalidParams, `Prompt ${String(ref.name)} not found`);
        return forward(context, route.upstream, { ...p, ref: { ...ref, name: route.original } });
      }
      const upstream = catalog.templateOwner(String(ref.uri)) ?? resourceOwner(deps, ref.uri);
      return forward(context, upstream);
    },

    'logging/setLevel': async ({ request }) => {
      const level = String(params(request).level);
      await Promise.all(deps.upstreams.map((u) => u.setLogLevel(level).catch(() => undefined)));
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
  const { request, extra, session } = context;
  const clientToken = extra._meta?.progressToken;
  let progressSent: Promise<void> = Promise.resolve();
  const onprogress = (progress: Progress) => {
    if (clientToken === undefined) return;
    progressSent = extra
      .sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken: clientToken } })
      .catch(() => undefined);
  };
  session.routeTo(request.id, upstream);
  const result = await upstream.request(request.method, newParams ?? (request.params as Params | undefined), {
    signal: extra.signal,
    onprogress,
  });
  await progressSent;
  return result;
}

function resourceOwner(deps: HandlerDeps, uri: unknown): Upstream {
  const owner = deps.catalog.resourceOwner(String(uri));
  if (owner) return owner;
  const withResources = deps.upstreams.filter((u) => u.capabilities?.resources);
  if (withResources.length === 1) return withResources[0];
  if (deps.upstreams.length === 1) return deps.upstreams[0];
  throw new ClientError(ErrorCode.InvalidParams, `Resource ${String(uri)} not found`);
}

function params(request: { params?: unknown }): Params {
  return (request.params ?? {}) as Params;
}
