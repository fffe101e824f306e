import type { Tool } from '@modelcontextprotocol/client';
import type { RequestEnvelope } from '../protocol/envelope.js';
import {
  CLIENT_CAPABILITIES_KEY,
  CLIENT_INFO_KEY,
  LOG_LEVEL_KEY,
  PROTOCOL_VERSION_KEY,
  withoutEnvelope,
} from '../protocol/envelope.js';
import type { ProtocolEra } from '../protocol/versions.js';
import type { Frame } from '../wire/frame.js';
import type { ClientIdentity } from './client-identity.js';
import { envelopeMeta } from './connect.js';
import { paramHeaders } from './param-headers.js';

/** What a request's hop to an upstream depends on: the connection's era and version, and who it speaks for. */
export interface Hop {
  era: ProtocolEra;
  protocolVersion: string;
  /** The client the connection speaks for (the proxy, on a shared connection). */
  identity: ClientIdentity;
  /** The level set with logging/setLevel, which a 2026-07-28 server gets with each request instead. */
  logLevel?: string;
}

/**
 * A client's request as this hop gets it. A 2026-07-28 upstream: the envelope of the client who asks (a 2026-07-28
 * client's own, a 2025 client's `initialize`, else the client the connection speaks for) in this hop's protocol
 * version. A 2025 upstream: without the downstream hop's envelope keys, which mean nothing to it. Everything else
 * in `_meta`, and every other byte of the request, goes as it came.
 */
export function forHop(frame: Frame, hop: Hop, envelope: RequestEnvelope | undefined): Frame {
  const meta = frame.params._meta;
  const own =
    meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
  if (hop.era === 'modern') {
    const clientInfo = envelope?.clientInfo ?? hop.identity.clientInfo;
    const capabilities = envelope?.clientCapabilities ?? hop.identity.capabilities;
    const logLevel = envelope?.logLevel ?? hop.logLevel;
    // A 2026-07-28 client before a server of its version: the request carries this very envelope (the same values,
    // lifted from it), and goes as it came. (Each of the four ENVELOPE_KEYS compared in turn, without building the
    // envelope it is compared with: this is every such call's way.)
    if (
      own &&
      own[PROTOCOL_VERSION_KEY] === hop.protocolVersion &&
      own[CLIENT_INFO_KEY] === clientInfo &&
      own[CLIENT_CAPABILITIES_KEY] === capabilities &&
      own[LOG_LEVEL_KEY] === logLevel
    )
      return frame;
    const next = envelopeMeta({ clientInfo, capabilities }, hop.protocolVersion, logLevel);
    return frame.with(['params', '_meta'], { ...(own ? withoutEnvelope(own) : {}), ...next });
  }
  if (!own) return frame;
  const rest = withoutEnvelope(own);
  return rest === own ? frame : frame.with(['params', '_meta'], rest);
}

/**
 * Each listed tools array's tools by name. Every `tools/call` to a 2026-07-28 server over HTTP looks its tool up,
 * and a catalog may list hundreds; a refreshed list is a new array (catalog-fetch.ts), so an index never goes stale.
 */
const toolIndexes = new WeakMap<readonly Tool[], Map<string, Tool>>();

function toolNamed(tools: readonly Tool[], name: unknown): Tool | undefined {
  let index = toolIndexes.get(tools);
  if (index === undefined) {
    index = new Map();
    // The first of a name wins, as a search from the start would find it.
    for (const tool of tools) if (!index.has(tool.name)) index.set(tool.name, tool);
    toolIndexes.set(tools, index);
  }
  return typeof name === 'string' ? index.get(name) : undefined;
}

/** The `Mcp-Param-*` headers of a `tools/call` to a 2026-07-28 server over HTTP, from the tool's listed schema. */
export function paramHeadersOf(frame: Frame, tools: readonly Tool[]): Record<string, string> | undefined {
  const params = frame.params;
  return paramHeaders(toolNamed(tools, params.name), params.arguments);
}
