import type { JSONRPCRequest, Result, ServerContext } from '@modelcontextprotocol/server';
import type { DownstreamSession } from './session.js';

/** A request from a downstream client, as it arrived (the SDK passes the raw JSON-RPC message). */
export interface RequestContext {
  session: DownstreamSession;
  request: JSONRPCRequest;
  extra: ServerContext;
}

export type RequestHandler = (context: RequestContext) => Promise<Result>;
