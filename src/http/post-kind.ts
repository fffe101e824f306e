import type { IncomingMessage } from 'node:http';
import { classifyInboundRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { isPlainObject } from '../config/pointer.js';
import { isLeanMessage } from '../fast-path/eligibility.js';
import { isLegacyVersion } from '../protocol/versions.js';
import type { HttpContext } from './context.js';

// What kind of POST to /mcp a body is, as the SDK's entry would see it (mcp-endpoints.ts routes on these).

/** HTTP whitespace around a header value, which the web `Headers` drops. */
const HTTP_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/**
 * The request's headers read as the web `Headers`' `get` reads them (for the Mcp-Param-* check of a modern request):
 * any case of the name, a repeated header's values joined with ", ", null when absent. Building a web Request for
 * this cost each modern POST about 30 µs, for a check most tools never need.
 */
export function headerReader(req: IncomingMessage): Pick<Headers, 'get'> {
  return {
    get: (name) => {
      const value = req.headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value)
        ? value.map((item) => item.replace(HTTP_WHITESPACE, '')).join(', ')
        : value.replace(HTTP_WHITESPACE, '');
    },
  };
}

/**
 * Whether the SDK's entry would serve this POST as 2025-era traffic: its own classification (what `isLegacyRequest`
 * runs) on the parsed body and the three headers it reads, without building a web Request for every POST.
 */
export function isLegacy(req: IncomingMessage, body: unknown): boolean {
  const { headers } = req;
  // The hot case without the SDK's zod guards: a plain tools/call (or prompts/get, resources/read) with no 2026-07-28
  // envelope, and no header that claims that era, which the SDK's classification calls legacy too.
  const version = headers['mcp-protocol-version'];
  if (
    headers['mcp-method'] === undefined &&
    (version === undefined || (typeof version === 'string' && isLegacyVersion(version))) &&
    isLeanMessage(body)
  )
    return true;
  if (claimsModernEra(body)) return false;
  const text = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);
  return (
    classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: text(headers['mcp-protocol-version']),
      mcpMethodHeader: text(headers['mcp-method']),
      mcpNameHeader: text(headers['mcp-name']),
      body,
    }).kind === 'legacy'
  );
}

/**
 * A single message with a method other than `initialize`, whose `_meta` claims a protocol version: the SDK's
 * classification never calls that legacy (it is a 2026-07-28 request or notification, or refused as a malformed
 * one, which the SDK's 2026-07-28 entry answers). Its zod guards cost each such POST about 45 µs.
 */
function claimsModernEra(body: unknown): boolean {
  if (!isPlainObject(body)) return false;
  const { method, params } = body;
  if (typeof method !== 'string' || method === 'initialize' || !isPlainObject(params)) return false;
  return isPlainObject(params._meta) && PROTOCOL_VERSION_META_KEY in params._meta;
}

/** The entry's own methods: the SDK answers them before any handler runs. */
const ENTRY_METHODS = new Set(['server/discover', 'subscriptions/listen']);

/** The id of a request whose method nobody here answers; undefined for anything else. */
export function unknownRequestId(body: unknown, gateway: HttpContext['gateway']): string | number | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  return ENTRY_METHODS.has(method) || gateway.handles(method) ? undefined : id;
}

export function isListen(body: unknown): boolean {
  return body !== null && typeof body === 'object' && (body as { method?: unknown }).method === 'subscriptions/listen';
}
