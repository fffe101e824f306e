import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage, JSONRPCRequest, MessageExtraInfo } from '@modelcontextprotocol/client';
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';
import { isPlainObject } from '../config/pointer.js';
import { isLegacyVersion } from '../protocol/versions.js';
import { ProcessTransport } from '../transports/process-transport.js';
import type { Transport } from '@modelcontextprotocol/client';

/** The methods the lean dispatcher serves: the calls that carry a session's traffic. */
const LEAN_METHODS = new Set(['tools/call']);

/** The 2026-07-28 vocabulary in a request: per-request envelope keys, and the multi-round-trip params. */
const ENVELOPE_KEY_PREFIX = 'io.modelcontextprotocol/';
const RETRY_PARAMS = ['inputResponses', 'requestState'];

/**
 * Whether relayed requests to this upstream connection may skip the SDK client (direct-requests.ts), where the SDK's
 * client adds nothing to a relayed request but validation a relay does not want: a local process or a Streamable
 * HTTP server, in either era. Legacy SSE connections stay with the SDK.
 */
export function relaysDirectly(connection: { transport: Transport }): boolean {
  const { transport } = connection;
  return transport instanceof ProcessTransport || transport instanceof StreamableHTTPClientTransport;
}

/**
 * Whether a client's message is a request the lean dispatcher may take (lean-dispatch.ts): one of its methods,
 * with plain params that hold nothing the SDK server would lift out or check for the 2026-07-28 era, on a
 * connection the transport did not classify (the SDK checks a classified message's era itself). Whether the
 * session and the route allow it is the session's to say.
 */
export function isLeanRequest(message: JSONRPCMessage, extra?: MessageExtraInfo): message is JSONRPCRequest {
  if (!('method' in message) || !('id' in message) || !LEAN_METHODS.has(message.method)) return false;
  if ((extra as { classification?: unknown } | undefined)?.classification !== undefined) return false;
  const { params } = message;
  if (!isPlainObject(params)) return false;
  for (const key of RETRY_PARAMS) if (key in params) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isPlainObject(meta)) return false;
  for (const key in meta) if (key.startsWith(ENVELOPE_KEY_PREFIX)) return false;
  return true;
}

/**
 * Whether a message is a 2026-07-28 request the lean dispatcher may take (modern-wire.ts does the SDK's steps for
 * it): one of its methods with a string or number id, plain params that are not a multi-round-trip retry, and a
 * `_meta` that claims the era. Whether the envelope holds is checked with the SDK's own rule after this.
 */
export function isModernLeanRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  if (!('method' in message) || !('id' in message) || !LEAN_METHODS.has(message.method)) return false;
  if (typeof message.id !== 'string' && typeof message.id !== 'number') return false;
  const { params } = message;
  if (!isPlainObject(params)) return false;
  for (const key of RETRY_PARAMS) if (key in params) return false;
  return isPlainObject(params._meta) && PROTOCOL_VERSION_META_KEY in params._meta;
}

/**
 * Whether a parsed JSON body is a well-formed JSON-RPC request (version 2.0, a string or number id) that
 * isLeanRequest accepts: for a POST that is served past the SDK's Node adapter (http/lean-post.ts), and for telling
 * such a POST's era without the SDK's guards (http/post-kind.ts).
 */
export function isLeanMessage(value: unknown): value is JSONRPCRequest {
  if (!isPlainObject(value)) return false;
  const { jsonrpc, id } = value;
  if (jsonrpc !== '2.0' || (typeof id !== 'string' && typeof id !== 'number')) return false;
  return isLeanRequest(value as JSONRPCMessage);
}

/** What the lean paths read of a catalog: a tool's route, and the era of the upstream that serves it. */
export interface ToolRoutes {
  tool(name: string): { upstream: { protocolVersion?: string } } | undefined;
}

/**
 * Whether a call names a tool of a legacy-era upstream, or no upstream's (the proxy's own, or an unknown one): a call
 * whose answer cannot be input_required, which the lean paths may take.
 */
export function routesToLegacy(catalog: ToolRoutes, request: JSONRPCRequest): boolean {
  const name = (request.params as { name?: unknown }).name;
  if (typeof name !== 'string') return false;
  // No route: the handler answers the proxy's own tool, and "not found" for an unknown one.
  const route = catalog.tool(name);
  return route === undefined || isLegacyVersion(route.upstream.protocolVersion);
}
