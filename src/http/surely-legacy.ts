import { isPlainObject } from '../config/pointer.js';
import { PROTOCOL_VERSION_KEY } from '../protocol/envelope.js';
import { isModernVersion } from '../protocol/versions.js';
import { isExactNumber } from '../wire/json.js';

/** The members a JSON-RPC request may have (the SDK's request schema is strict). */
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const RELATED_TASK_KEY = 'io.modelcontextprotocol/related-task';

/**
 * Whether the SDK's `classifyInboundRequest` would call this POST a 2025 request, told from a few plain checks: a
 * single JSON-RPC request other than `initialize`, of the shape the SDK's request schema accepts, without the
 * 2026-07-28 envelope claim in `_meta`, under no MCP-Protocol-Version header or a 2025 one. That is nearly every POST
 * of a 2025 session, which then skips the schema checks (a sixth of the proxy's CPU per small HTTP call, profiled).
 * Anything else, and anything these checks are not sure of, the SDK classifies; test/unit/surely-legacy.test.ts
 * holds the two to the same answer.
 */
export function surelyLegacy(body: unknown, protocolVersionHeader: string | undefined): boolean {
  if (protocolVersionHeader !== undefined && isModernVersion(protocolVersionHeader.replace(/^[ \t]+|[ \t]+$/g, '')))
    return false;
  if (!isObject(body)) return false;
  for (const key in body) if (!REQUEST_KEYS.has(key)) return false;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || typeof method !== 'string' || method === 'initialize') return false;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return false;
  if (params === undefined) return true;
  if (!isObject(params)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isObject(meta) || PROTOCOL_VERSION_KEY in meta) return false;
  const token = meta.progressToken;
  if (token !== undefined && !(typeof token === 'string' || (typeof token === 'number' && Number.isSafeInteger(token))))
    return false;
  const related = meta[RELATED_TASK_KEY];
  return related === undefined || (isObject(related) && typeof related.taskId === 'string');
}

/** An object member as the SDK's schema reads it: a number kept as its text is a number there, not an object. */
function isObject(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && !isExactNumber(value);
}
