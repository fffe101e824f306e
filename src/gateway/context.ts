import type { JSONRPCRequest, Result, ServerContext } from '@modelcontextprotocol/server';
import type { RequestEnvelope } from './envelope.js';
import type { DownstreamSession } from './session.js';

/** A request from a downstream client, as it arrived (the SDK passes the raw JSON-RPC message). */
export interface RequestContext {
  session: DownstreamSession;
  request: JSONRPCRequest;
  extra: ServerContext;
  /** Who asks: the modern request's `_meta` envelope, or the legacy client's `initialize` identity. */
  envelope: RequestEnvelope;
}

export type RequestHandler = (context: RequestContext) => Promise<Result>;
