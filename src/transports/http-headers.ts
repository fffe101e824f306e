import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';
import type { Frame } from '../wire/frame.js';
import { acceptWith } from './http-request.js';

/**
 * The headers of a Streamable HTTP POST, as the SDK's StreamableHTTPClientTransport writes them: the connection's
 * (configured headers, then the token, session id and protocol version over them), the standard headers a
 * 2026-07-28 request derives from its body, the message's own extra headers (never over the reserved ones), and the
 * content type and accepted types.
 */

/** Headers a message's own extra headers may not replace (the SDK transport's RESERVED_REQUEST_HEADER_NAMES). */
const RESERVED_HEADERS = new Set([
  'authorization',
  'dpop',
  'content-type',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'mcp-session-id',
]);

/** Where a 2026-07-28 request's `Mcp-Name` comes from (the SDK's MCP_NAME_HEADER_SOURCE). */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** What a POST accepts, beside what was configured; made once for the common case of nothing configured. */
const POST_TYPES = ['application/json', 'text/event-stream'];
const POST_ACCEPT = acceptWith(undefined, ...POST_TYPES);

export interface ConnectionState {
  /** The configured headers, names lower-cased. */
  configured: Record<string, string>;
  token?: string;
  sessionId?: string;
  protocolVersion?: string;
}

/** The headers every request of the connection carries. */
export function connectionHeaders({
  configured,
  token,
  sessionId,
  protocolVersion,
}: ConnectionState): Record<string, string> {
  const headers = { ...configured };
  if (token) headers.authorization = `Bearer ${token}`;
  if (sessionId) headers['mcp-session-id'] = sessionId;
  if (protocolVersion) headers['mcp-protocol-version'] = protocolVersion;
  return headers;
}

/** The version a 2026-07-28 request names in its `_meta` envelope (its headers follow it). */
export function envelopeVersion(frame: Frame): string | undefined {
  if (frame.kind !== 'request') return undefined;
  const meta = frame.params._meta;
  const version =
    meta !== null && typeof meta === 'object'
      ? (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY]
      : undefined;
  return typeof version === 'string' ? version : undefined;
}

/** The headers of the POST of `frame`. */
export function postHeaders(
  connection: ConnectionState,
  frame: Frame,
  extra: Record<string, string> = {},
): Record<string, string> {
  const headers = connectionHeaders(connection);
  const envelope = envelopeVersion(frame);
  if (envelope !== undefined) {
    headers['mcp-protocol-version'] = envelope;
    headers['mcp-method'] = frame.method!;
    const source = NAME_SOURCE[frame.method!];
    const name = source === undefined ? undefined : frame.params[source];
    if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  }
  // A new session starts without a session id (2025-11-25 transports, Session Management).
  if (frame.method === 'initialize' && frame.kind === 'request') delete headers['mcp-session-id'];
  for (const [name, value] of Object.entries(extra)) {
    if (!RESERVED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  headers['content-type'] = 'application/json';
  headers.accept = headers.accept === undefined ? POST_ACCEPT : acceptWith(headers.accept, ...POST_TYPES);
  return headers;
}

/**
 * A header value as the 2026-07-28 spec has it: plain ASCII as it is, anything else (or what looks encoded) in the
 * Base64 sentinel form `=?base64?…?=` (the SDK's encodeMcpParamValue).
 */
export function encodeHeaderValue(text: string): string {
  const plain =
    text.length > 0 &&
    text === text.trim() &&
    !(text.startsWith('=?base64?') && text.endsWith('?=')) &&
    [...text].every((c) => c === '\t' || (c >= ' ' && c <= '~'));
  return plain ? text : `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}
