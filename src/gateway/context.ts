import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { JSONRPCRequest, Notification, Request, Result } from '@modelcontextprotocol/sdk/types.js';
import type { DownstreamSession } from './session.js';

/** A request from a downstream client, as it arrived (the SDK passes the raw JSON-RPC message). */
export interface RequestContext {
  session: DownstreamSession;
  request: JSONRPCRequest;
  extra: RequestHandlerExtra<Request, Notification>;
}

export type RequestHandler = (context: RequestContext) => Promise<Result>;
