import type { RequestEnvelope } from '../upstreams/upstream.js';
import type { ClientCapabilities, Implementation, ServerContext } from '@modelcontextprotocol/server';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
/**
 * Who is asking, per request: on a modern request the `_meta` envelope it carried; on a legacy connection what the
 * client said in `initialize`. Upstream connections send what their era allows of it.
 */
export type { RequestEnvelope };

/** The envelope of a modern request, as the SDK lifted it out of `_meta`. */
export function envelopeOf(ctx: ServerContext): RequestEnvelope {
  return envelopeFrom((ctx.mcpReq.envelope ?? {}) as Record<string, unknown>);
}

/** A lifted envelope's keys (modern-wire.ts liftEnvelope, or the SDK's) as the gateway reads them. */
export function envelopeFrom(lifted: Record<string, unknown>): RequestEnvelope {
  const envelope: RequestEnvelope = {};
  if (lifted[CLIENT_INFO_META_KEY] !== undefined) envelope.clientInfo = lifted[CLIENT_INFO_META_KEY] as Implementation;
  if (lifted[CLIENT_CAPABILITIES_META_KEY] !== undefined)
    envelope.clientCapabilities = lifted[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities;
  if (typeof lifted[LOG_LEVEL_META_KEY] === 'string') envelope.logLevel = lifted[LOG_LEVEL_META_KEY];
  if (typeof lifted[PROTOCOL_VERSION_META_KEY] === 'string')
    envelope.protocolVersion = lifted[PROTOCOL_VERSION_META_KEY];
  return envelope;
}

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** Whether a log message of `level` passes a request's threshold (none asked: nothing passes, the 2026 rule). */
export function logLevelPasses(level: unknown, threshold: string | undefined): boolean {
  if (threshold === undefined) return false;
  const at = LOG_LEVELS.indexOf(String(level));
  const min = LOG_LEVELS.indexOf(threshold);
  return at === -1 || min === -1 || at >= min;
}
