import type { HttpServerConfig } from '../config/types.js';
import { StreamableHttpWire } from '../transports/http-client.js';
import { SseWire } from '../transports/sse-client.js';
import type { Wire } from '../wire/wire.js';
import type { UpstreamLogin } from './oauth/upstream-login.js';

/** A remote server's wire, with what the handshake sets on it once the era is known. */
export type RemoteWire = Wire & {
  protocolVersion?: string;
  /** The standalone stream of a 2025 session (Streamable HTTP). */
  openStream?(): void | Promise<void>;
  /** The legacy SSE transport waits for its endpoint event. */
  start?(): Promise<void>;
  /** The last authorization failure (transports/http-auth.ts): the request it ended got an error frame. */
  readonly authFailure?: Error;
};

/**
 * The wire to a remote server over the transport asked for, with its OAuth: the provider over its token file when
 * it has one (upstreams/oauth/), which the login watches to tell "needs a login" from an outage.
 */
export function remoteWire(config: HttpServerConfig, kind: 'streamable' | 'sse', login?: UpstreamLogin): RemoteWire {
  const provider = login?.provider();
  const options = { url: config.url, headers: config.headers, ...(provider ? { auth: { provider } } : {}) };
  const wire = kind === 'sse' ? new SseWire(options) : new StreamableHttpWire(options);
  login?.observe(wire);
  return wire;
}
