import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage, JSONRPCRequest, MessageExtraInfo } from '@modelcontextprotocol/client';
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';
import { isPlainObject } from '../config/pointer.js';
import { isLegacyVersion } from '../protocol/versions.js';
import { ProcessTransport } from '../transports/process-transport.js';
import type { Transport } from '@modelcontextprotocol/client';

/**
 * The methods the lean dispatcher serves for a legacy session: the calls that carry a session's traffic, and the
 * reads that go to one upstream as they are. A 2026-07-28 session's are only its `tools/call` (MODERN_LEAN_METHODS):
 * the SDK encodes other results for that revision by rules of their own.
 */
const LEAN_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);
const MODERN_LEAN_METHODS = new Set(['tools/call']);

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
  if (!('method' in message) || !('id' in message) || !MODERN_LEAN_METHODS.has(message.method)) return false;
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

/** What the lean paths read of a catalog: the routes of tools, prompts and resources, and their upstreams' era. */
export interface ToolRoutes {
  tool(name: string): { upstream: { protocolVersion?: string } } | undefined;
  prompt(name: string): { upstream: { protocolVersion?: string } } | undefined;
  resourceOwner(uri: string): { protocolVersion?: string } | undefined;
}

/**
 * Whether a request names a tool, prompt or resource of a legacy-era upstream, or none of an upstream's (the proxy's
 * own, or an unknown one, which the handler answers): a request whose answer cannot be input_required, which the lean
 * paths may take.
 */
export function routesToLegacy(catalog: ToolRoutes, request: JSONRPCRequest): boolean {
  const params = request.params as { name?: unknown; uri?: unknown };
  const key = request.method === 'resources/read' ? params.uri : params.name;
  if (typeof key !== 'string') return false;
  const upstream =
    request.method === 'resources/read'
      ? catalog.resourceOwner(key)
      : (request.method === 'prompts/get' ? catalog.prompt(key) : catalog.tool(key))?.upstream;
  return upstream === undefined || isLegacyVersion(upstream.protocolVersion);
}
