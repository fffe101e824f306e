import type { ServerResponse } from 'node:http';
import { REALM } from '../auth.js';

/** What the refusal says: nothing offered, a token that does not verify, or one without the scopes. */
export type Refusal =
  | { kind: 'missing' }
  | { kind: 'invalid_token'; description: string }
  | { kind: 'insufficient_scope'; description: string };

/**
 * The `WWW-Authenticate` challenge of an OAuth protected resource (RFC 6750 §3, RFC 9728 §5.1): `resource_metadata`
 * lets a client find the authorization server, `scope` says what to ask it for. A request without credentials gets
 * no error code (RFC 6750 §3.1).
 */
export function challenge(refusal: Refusal, metadataUrl: string, requiredScopes: readonly string[]): string {
  const params = [`resource_metadata="${quoted(metadataUrl)}"`];
  if (requiredScopes.length > 0) params.push(`scope="${quoted(requiredScopes.join(' '))}"`);
  if (refusal.kind !== 'missing')
    params.push(`error="${refusal.kind}"`, `error_description="${quoted(refusal.description)}"`);
  params.push(`realm="${REALM}"`);
  return `Bearer ${params.join(', ')}`;
}

/** 401 (403 for insufficient_scope) with the challenge and the OAuth error body. */
export function refuse(res: ServerResponse, refusal: Refusal, metadataUrl: string, scopes: readonly string[]): void {
  const body =
    refusal.kind === 'missing'
      ? {
          error: 'unauthorized',
          error_description:
            'send Authorization: Bearer <access token>; resource_metadata in WWW-Authenticate says where to get one',
        }
      : { error: refusal.kind, error_description: refusal.description };
  res
    .writeHead(refusal.kind === 'insufficient_scope' ? 403 : 401, {
      'content-type': 'application/json',
      'www-authenticate': challenge(refusal, metadataUrl, scopes),
      'cache-control': 'no-store',
    })
    .end(JSON.stringify(body));
}

/** 503: the issuer's keys could not be had, so the token could be checked neither way; the client may retry. */
export function refuseUnavailable(res: ServerResponse, message: string): void {
  res
    .writeHead(503, { 'content-type': 'application/json', 'cache-control': 'no-store', 'retry-after': '5' })
    .end(JSON.stringify({ error: 'temporarily_unavailable', error_description: message }));
}

/** A quoted-string's content: backslash and double quote escaped, control characters dropped. */
function quoted(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]/g, '').replace(/["\\]/g, '\\$&');
}
