import { isPlainObject } from '../config/pointer.js';
import { isExactNumber } from '../wire/json.js';

/** The members a JSON-RPC request may have (the SDK's request schema is strict). */
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const RELATED_TASK_KEY = 'io.modelcontextprotocol/related-task';

/** A POST body's parts, once plain checks have shown it is a request the SDK's schema accepts. */
export interface RequestParts {
  method: string;
  /** `params._meta`, when there is one. */
  meta?: Record<string, unknown>;
}

/**
 * The parts of a body the SDK's `JSONRPCRequestSchema` surely accepts, told from a few plain checks (members, version,
 * id, method, and the `_meta` members that schema reads: the progress token and the related task); undefined when
 * these checks are not sure, so that the caller leaves the body to the SDK.
 */
export function requestParts(body: unknown): RequestParts | undefined {
  if (!isObject(body)) return undefined;
  for (const key in body) if (!REQUEST_KEYS.has(key)) return undefined;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return undefined;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined;
  if (params === undefined) return { method };
  if (!isObject(params)) return undefined;
  const meta = params._meta;
  if (meta === undefined) return { method };
  if (!isObject(meta)) return undefined;
  const token = meta.progressToken;
  if (token !== undefined && !(typeof token === 'string' || (typeof token === 'number' && Number.isSafeInteger(token))))
    return undefined;
  const related = meta[RELATED_TASK_KEY];
  if (related !== undefined && !(isObject(related) && typeof related.taskId === 'string')) return undefined;
  return { method, meta };
}

/** An object member as the SDK's schema reads it: a number kept as its text is a number there, not an object. */
function isObject(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && !isExactNumber(value);
}

/** A header's value as the SDK compares it: without the optional whitespace around it (RFC 9110). */
export function trimmed(value: string | undefined): string | undefined {
  return value?.replace(/^[ \t]+|[ \t]+$/g, '');
}
