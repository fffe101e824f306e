import type { FetchLike } from '@modelcontextprotocol/client';

/** What a 401 said about how to log in (RFC 9728 §5.1: `WWW-Authenticate: Bearer resource_metadata="..."`). */
export interface BearerChallenge {
  resourceMetadata?: string;
  scope?: string;
}

/**
 * A fetch that behaves exactly as the global one and remembers the last Bearer challenge of a 401, for a server
 * configured without `oauth`: the SDK's transport reports such a 401 only as an HTTP error, without its headers,
 * and the proxy must tell "this server wants a login" from an outage (no SSE fallback, no restart loop).
 */
export function challengeObserver(): { fetch: FetchLike; challenge: () => BearerChallenge | undefined } {
  let last: BearerChallenge | undefined;
  const observed: FetchLike = async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 401) {
      const header = response.headers.get('www-authenticate');
      if (header && /^\s*bearer\b/i.test(header)) last = parseBearer(header);
    }
    return response;
  };
  return { fetch: observed, challenge: () => last };
}

function parseBearer(header: string): BearerChallenge {
  const param = (name: string) => new RegExp(`${name}="([^"]*)"`, 'i').exec(header)?.[1];
  const resourceMetadata = param('resource_metadata');
  const scope = param('scope');
  return { ...(resourceMetadata ? { resourceMetadata } : {}), ...(scope ? { scope } : {}) };
}
