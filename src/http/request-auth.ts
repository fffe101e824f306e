import type { IncomingMessage, ServerResponse } from 'node:http';
import { BearerAuth, bearerToken, refuseUnauthenticated } from './auth.js';
import type { OAuthGate } from './oauth/oauth-gate.js';

/**
 * Who a request acts for: a static token's name, or (with auth.oauth) the principal of a verified JWT access token.
 * Static tokens are tried first, in constant time, so they keep working beside OAuth; without auth.oauth the
 * answers are exactly those of the static tokens alone.
 */
export class RequestAuth {
  constructor(
    private readonly bearer: BearerAuth,
    private readonly oauth?: OAuthGate,
  ) {}

  /** For the startup log line. */
  get kind(): string {
    if (this.oauth) return this.bearer.enabled ? 'bearer+oauth' : 'oauth';
    return this.bearer.enabled ? 'bearer' : 'none';
  }

  /** Whether a request names who it is (a token or an OAuth subject), rather than everyone being "anonymous". */
  get authenticates(): boolean {
    return this.kind !== 'none';
  }

  /**
   * The principal; `undefined` after the refusal (401, 403 or 503) has been written to `res`. A promise only when a
   * JWT must be verified: a static token (or none needed) is answered at once, so that the request goes on in the
   * turn it arrived in and its body is read as node:http parses it, rather than a promise job later.
   */
  authenticate(req: IncomingMessage, res: ServerResponse): string | undefined | Promise<string | undefined> {
    if (!this.oauth) {
      const name = this.bearer.check(req);
      if (name === undefined) refuseUnauthenticated(res);
      return name;
    }
    const token = bearerToken(req);
    if (token === undefined) {
      this.oauth.refuse(res, { refusal: { kind: 'missing' } });
      return undefined;
    }
    const name = this.bearer.nameOf(token);
    if (name !== undefined) return name;
    return this.verified(this.oauth, token, res);
  }

  private async verified(oauth: OAuthGate, token: string, res: ServerResponse): Promise<string | undefined> {
    const outcome = await oauth.verify(token);
    if ('principal' in outcome) return outcome.principal;
    oauth.refuse(res, outcome);
    return undefined;
  }
}
