import type { IncomingMessage } from 'node:http';
import { hostname } from 'node:os';
import type { HttpRequestOptions } from '../config/types.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];
const ANY_ADDRESS = new Set(['0.0.0.0', '::', '']);

/** The host name of a Host header or URL authority, lower-cased, without port and brackets. */
export function hostOnly(authority: string): string {
  const trimmed = authority.trim().toLowerCase();
  if (trimmed.startsWith('[')) return trimmed.slice(1, trimmed.indexOf(']') >>> 0);
  const colon = trimmed.lastIndexOf(':');
  return colon === -1 ? trimmed : trimmed.slice(0, colon);
}

/**
 * DNS rebinding protection: a web page in the user's browser may resolve its own name to 127.0.0.1
 * and then talk to us, but its requests still carry its own name in Host and its origin in Origin.
 * Only names we know stand for us are accepted.
 */
export class HostCheck {
  private readonly hosts: Set<string>;
  private readonly anyHost: boolean;
  private readonly origins: Set<string>;
  private readonly anyOrigin: boolean;

  constructor(listenHost: string, options: HttpRequestOptions, publicUrl?: string) {
    const hosts = [...LOOPBACK_NAMES, hostname(), ...options.allowedHosts];
    if (!ANY_ADDRESS.has(listenHost)) hosts.push(listenHost);
    if (publicUrl) hosts.push(new URL(publicUrl).hostname);
    this.hosts = new Set(hosts.map((h) => h.toLowerCase().replace(/^\[|\]$/g, '')));
    this.anyHost = this.hosts.has('*');
    this.origins = new Set(options.allowedOrigins.map((o) => o.toLowerCase().replace(/\/+$/, '')));
    this.anyOrigin = this.origins.has('*');
  }

  /** Why the request is refused, or undefined. */
  problem(req: IncomingMessage): string | undefined {
    const host = req.headers.host;
    if (!host) return 'missing Host header';
    if (!this.anyHost && !this.hosts.has(hostOnly(host))) return `Host "${host.slice(0, 100)}" is not allowed`;
    const origin = req.headers.origin;
    if (origin === undefined || this.anyOrigin) return undefined;
    const normal = origin.toLowerCase();
    if (this.origins.has(normal)) return undefined;
    let originHost: string;
    try {
      originHost = new URL(normal).hostname.replace(/^\[|\]$/g, '');
    } catch {
      return `Origin "${origin.slice(0, 100)}" is not allowed`;
    }
    return this.anyHost || this.hosts.has(originHost) ? undefined : `Origin "${origin.slice(0, 100)}" is not allowed`;
  }
}
