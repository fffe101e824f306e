import type { ClientCapabilities, Implementation } from '@modelcontextprotocol/server';

/** The `_meta` keys of the 2026-07-28 per-request envelope. */
export const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
export const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const LOG_LEVEL_KEY = 'io.modelcontextprotocol/logLevel';
export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
export const SUBSCRIPTION_ID_KEY = 'io.modelcontextprotocol/subscriptionId';

/** The envelope keys a request carries for the hop it is on (the next hop gets its own). */
export const ENVELOPE_KEYS = [PROTOCOL_VERSION_KEY, CLIENT_INFO_KEY, CLIENT_CAPABILITIES_KEY, LOG_LEVEL_KEY] as const;

/**
 * Who is asking, per request: on a 2026-07-28 request the `_meta` envelope it carried; on a legacy connection what
 * the client said in `initialize`. Upstream connections send what their era allows of it.
 */
export interface RequestEnvelope {
  clientInfo?: Implementation;
  clientCapabilities?: ClientCapabilities;
  logLevel?: string;
  /** The downstream hop's version; the upstream hop has its own, so it is not passed on. */
  protocolVersion?: string;
}

/** The envelope a request's `_meta` carries (an empty one when it carries none). */
export function envelopeOf(meta: unknown): RequestEnvelope {
  if (meta === null || typeof meta !== 'object') return {};
  const lifted = meta as Record<string, unknown>;
  const envelope: RequestEnvelope = {};
  if (isObject(lifted[CLIENT_INFO_KEY])) envelope.clientInfo = lifted[CLIENT_INFO_KEY] as Implementation;
  if (isObject(lifted[CLIENT_CAPABILITIES_KEY]))
    envelope.clientCapabilities = lifted[CLIENT_CAPABILITIES_KEY] as ClientCapabilities;
  if (typeof lifted[LOG_LEVEL_KEY] === 'string') envelope.logLevel = lifted[LOG_LEVEL_KEY];
  if (typeof lifted[PROTOCOL_VERSION_KEY] === 'string') envelope.protocolVersion = lifted[PROTOCOL_VERSION_KEY];
  return envelope;
}

const ENVELOPE = new Set<string>(ENVELOPE_KEYS);

/**
 * A `_meta` object without the envelope keys (what a legacy hop gets of a 2026-07-28 request's `_meta`): the same
 * object when it has none, undefined when it has nothing else (a 2026-07-28 client's usual `_meta`). Built member by
 * member, not copied and deleted from: an object with members deleted becomes a dictionary, slow to read and to copy,
 * and this runs on every such request. (Object.fromEntries defines its members, so a `__proto__` key stays a key.)
 */
export function withoutEnvelope(meta: Record<string, unknown>): Record<string, unknown> | undefined {
  const keys = Object.keys(meta);
  if (!keys.some((key) => ENVELOPE.has(key))) return meta;
  const rest = keys.filter((key) => !ENVELOPE.has(key));
  return rest.length ? Object.fromEntries(rest.map((key) => [key, meta[key]])) : undefined;
}

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** Whether a log message of `level` passes a request's threshold (none asked: nothing passes, the 2026 rule). */
export function logLevelPasses(level: unknown, threshold: string | undefined): boolean {
  if (threshold === undefined) return false;
  const at = LOG_LEVELS.indexOf(String(level));
  const min = LOG_LEVELS.indexOf(threshold);
  return at === -1 || min === -1 || at >= min;
}

function isObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
