import { isPlainObject } from '../config/pointer.js';
import { SERVER_INFO_KEY } from '../protocol/envelope.js';
import { Frame, type Id } from '../wire/frame.js';
import type { Implementation } from '@modelcontextprotocol/server';

/** Results a 2026-07-28 client may cache: they carry `ttlMs` and `cacheScope`. */
const CACHEABLE = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/** The SDK's defaults for a cacheable result that names no hint of its own (stale at once, not shareable). */
const DEFAULT_TTL_MS = 0;
const DEFAULT_CACHE_SCOPE = 'private';

type Result = Record<string, unknown>;

export function isInputRequired(result: Result): boolean {
  return result.resultType === 'input_required';
}

/** A result without `resultType` is complete: results of the legacy era. */
export function isComplete(result: Result): boolean {
  return result.resultType === undefined || result.resultType === 'complete';
}

/** A tools/call result (content blocks), as opposed to a task handle or a request for input. */
export function isToolResult(result: Result): boolean {
  return Array.isArray(result.content);
}

/**
 * A result as a 2026-07-28 client must get it: `resultType` (required there), the cache fields of a cacheable
 * result, and the server's identity in `_meta`. A modern upstream's result has them already and stays as it came;
 * a legacy upstream's gets the members it lacks, spliced in.
 */
export function forModernClient(answer: Frame, method: string, serverInfo: Implementation): Frame {
  const result = answer.message.result;
  if (!result || typeof result !== 'object') return answer;
  // One edit of `result` for all the members it lacks: each edit copies the message and its result.
  const members: Array<[string, unknown]> = [];
  if (result.resultType === undefined) members.push(['resultType', 'complete']);
  const complete = result.resultType === undefined || result.resultType === 'complete';
  if (complete && CACHEABLE.has(method)) {
    if (typeof result.ttlMs !== 'number' || result.ttlMs < 0) members.push(['ttlMs', DEFAULT_TTL_MS]);
    if (result.cacheScope !== 'public' && result.cacheScope !== 'private')
      members.push(['cacheScope', DEFAULT_CACHE_SCOPE]);
  }
  const meta = result._meta;
  if (meta === undefined) members.push(['_meta', identityMeta(serverInfo)]);
  else if (isPlainObject(meta) && meta[SERVER_INFO_KEY] === undefined)
    members.push(['_meta', { ...meta, [SERVER_INFO_KEY]: serverInfo }]);
  return answer.withMembers('result', members);
}

/**
 * `_meta` holding only the server's identity, made once for each identity: most answers to a 2026-07-28 client get
 * it, and an object literal with a computed key is built by a call into V8's runtime each time. Frames are never
 * changed in place (an edit copies), so one object serves them all.
 */
const identities = new WeakMap<Implementation, Record<string, unknown>>();
function identityMeta(serverInfo: Implementation): Record<string, unknown> {
  let meta = identities.get(serverInfo);
  if (!meta) identities.set(serverInfo, (meta = { [SERVER_INFO_KEY]: serverInfo }));
  return meta;
}

/**
 * A result as a 2025 client gets it: without the members of the 2026-07-28 revision (`resultType: "complete"`, the
 * cache fields, the server's identity in `_meta`), which that client's schemas do not know. A result of the legacy
 * era passes as it came.
 */
export function forLegacyClient(answer: Frame): Frame {
  const result = answer.message.result;
  if (!result || typeof result !== 'object') return answer;
  let framed = answer;
  if (result.resultType === 'complete') framed = framed.with(['result', 'resultType'], undefined);
  if ('ttlMs' in result) framed = framed.with(['result', 'ttlMs'], undefined);
  if ('cacheScope' in result) framed = framed.with(['result', 'cacheScope'], undefined);
  const meta = result._meta;
  if (isPlainObject(meta) && SERVER_INFO_KEY in meta) {
    const { [SERVER_INFO_KEY]: _identity, ...rest } = meta;
    framed = framed.with(['result', '_meta'], Object.keys(rest).length ? rest : undefined);
  }
  return framed;
}

/** The answer to a tool call the proxy did not send upstream (write-back.ts, restore.ts), saying why. */
export function notSent(id: Id, why: string): Frame {
  return Frame.result(id, {
    content: [{ type: 'text', text: `mcp-offload did not send this call: ${why}` }],
    isError: true,
  });
}
