import { PROTOCOL_VERSION_KEY } from '../protocol/envelope.js';
import { isModernVersion } from '../protocol/versions.js';
import type { RequestParts } from './request-shape.js';

/**
 * Whether the SDK's `classifyInboundRequest` would call this POST a 2025 request, told from a few plain checks: a
 * single JSON-RPC request other than `initialize`, of the shape the SDK's request schema accepts, without the
 * 2026-07-28 envelope claim in `_meta`, under no MCP-Protocol-Version header or a 2025 one. That is nearly every POST
 * of a 2025 session, which then skips the schema checks (a sixth of the proxy's CPU per small HTTP call, profiled).
 * Anything else, and anything these checks are not sure of, the SDK classifies; test/unit/surely-legacy.test.ts
 * holds the two to the same answer. Given the body's parts (`requestParts`) and the header trimmed (`trimmed`), which
 * PostEras reads once for this glance and the next.
 */
export function surelyLegacy(parts: RequestParts | undefined, header: string | undefined): boolean {
  if (header !== undefined && isModernVersion(header)) return false;
  if (parts === undefined || parts.method === 'initialize') return false;
  return parts.meta === undefined || !(PROTOCOL_VERSION_KEY in parts.meta);
}
