import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
} from '@modelcontextprotocol/server';
import type { Implementation, JSONRPCRequest, Result, Server } from '@modelcontextprotocol/server';
import { isPlainObject } from '../config/pointer.js';

// The SDK's own steps for a 2026-07-28 `tools/call` (its Protocol's request dispatch and the revision's codec), for the
// lean dispatcher to take such a call past the SDK (lean-dispatch.ts; which calls it takes: eligibility.ts): the
// envelope lifted out of `_meta`, the result stamped, the error code mapped. Each mirrors the SDK 2.4 function named
// in its comment.

/** The `_meta` keys of the per-request envelope (the SDK's RESERVED_ENVELOPE_META_KEYS). */
const ENVELOPE_KEYS = [
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
];
/**
 * The request as its handler sees it and the envelope apart, as the SDK's `liftWireOnlyMaterial` splits them: the
 * envelope keys leave `_meta`, and a `_meta` left empty leaves the params. Copied key by key, in order, where a copy
 * and `delete` would turn each object into a slow dictionary.
 */
export function liftEnvelope(request: JSONRPCRequest): { request: JSONRPCRequest; envelope: Record<string, unknown> } {
  const params = request.params as Record<string, unknown>;
  const meta = params._meta as Record<string, unknown>;
  const envelope: Record<string, unknown> = {};
  for (const key of ENVELOPE_KEYS) if (key in meta) envelope[key] = meta[key];
  let rest: Record<string, unknown> | undefined;
  for (const key of Object.keys(meta)) if (!ENVELOPE_KEYS.includes(key)) put((rest ??= {}), key, meta[key]);
  const next: Record<string, unknown> = {};
  for (const key of Object.keys(params)) {
    if (key !== '_meta') put(next, key, params[key]);
    else if (rest) next._meta = rest;
  }
  return { request: { ...request, params: next }, envelope };
}

/** Sets an own property as a spread copies one: a key `__proto__` (JSON.parse makes it an own key) included. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * A `tools/call` result as the revision's codec encodes it (`encodeResult`): a `tasks` capability (deleted from the
 * revision) dropped, `resultType` stamped `complete` unless the handler gave one (a `tools/call` may be
 * `input_required`), and the server's identity stamped into `_meta` unless it is there (or `_meta` is not an object).
 */
export function encodeModernCallResult(result: Result, serverInfo: Implementation | undefined): Result {
  let encoded: Record<string, unknown> = result;
  const { capabilities } = encoded;
  if (isPlainObject(capabilities) && 'tasks' in capabilities) {
    const rest = { ...capabilities };
    delete rest.tasks;
    encoded = { ...encoded, capabilities: rest };
  }
  const typed = encoded.resultType !== undefined;
  const meta = encoded._meta;
  const stamped =
    serverInfo === undefined ||
    (meta !== undefined && (!isPlainObject(meta) || meta[SERVER_INFO_META_KEY] !== undefined));
  if (typed && stamped) return encoded as Result;
  // One copy for both stamps (a result of every call).
  const out: Record<string, unknown> = { ...encoded };
  if (!typed) out.resultType = 'complete';
  if (!stamped) out._meta = { ...(meta as Record<string, unknown> | undefined), [SERVER_INFO_META_KEY]: serverInfo };
  return out as Result;
}

/** An error code as the revision's codec writes it (`encodeErrorCode`): the old resource-not-found is -32602. */
export function encodeModernErrorCode(code: number): number {
  return code === -32002 ? -32602 : code;
}

/** What the lean dispatcher reads of the SDK server's 2026-07-28 codec (SDK 2.4 internals, checked before use). */
export interface ModernCodec {
  checkInboundEnvelope(material: { envelope?: Record<string, unknown> }): string | undefined;
}

/** The 2026-07-28 codec of the SDK server, when its internals are where SDK 2.4 keeps them. */
export function modernCodecOf(server: Server): ModernCodec | undefined {
  const codec = (server as unknown as { _wireCodec?: () => Partial<ModernCodec> })._wireCodec?.();
  return typeof codec?.checkInboundEnvelope === 'function' ? (codec as ModernCodec) : undefined;
}

/** The identity the SDK server stamps into a 2026-07-28 result's `_meta` (its `_outboundServerInfo`, SDK 2.4). */
export function serverInfoOf(server: Server): Implementation | undefined {
  return (server as unknown as { _outboundServerInfo?: () => Implementation | undefined })._outboundServerInfo?.();
}

/**
 * The envelope an SDK client puts before the `_meta` of each request it sends in the 2026-07-28 era (its
 * `_outboundMetaEnvelope`, SDK 2.4): undefined for a client of the legacy era, or one whose internals moved.
 */
export function clientEnvelopeOf(client: object): (() => Record<string, unknown> | undefined) | undefined {
  const envelope = (client as { _outboundMetaEnvelope?: () => Record<string, unknown> | undefined })
    ._outboundMetaEnvelope;
  return typeof envelope === 'function' ? () => envelope.call(client) : undefined;
}
