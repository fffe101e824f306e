import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNING_KEY_ENV = 'MCP_OFFLOAD_SIGNING_KEY';

export type LinkCheck = 'ok' | 'expired' | 'invalid';

/**
 * Signed, expiring links: HMAC-SHA256 over what the link opens and its expiry. Whoever holds the link
 * may use it until then, without the bearer token, so a person can click it.
 */
export class LinkSigner {
  private readonly key: Buffer;

  constructor(
    key: string | Buffer | undefined,
    readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    // A random key makes links die with the process, which is safe but surprising behind a load balancer.
    // With redis the replicas share one (src/shared/shared-secrets.ts).
    this.key = typeof key === 'string' ? Buffer.from(key, 'utf8') : (key ?? randomBytes(32));
  }

  /** Query parameters for a link to `subject` (an artifact id, or a gallery scope). */
  sign(subject: string, expires = Math.floor(this.now() / 1000) + this.ttlSeconds): { expires: string; sig: string } {
    return { expires: String(expires), sig: this.mac(subject, expires) };
  }

  check(subject: string, expires: string | null, sig: string | null): LinkCheck {
    if (!expires || !sig || !/^\d{1,12}$/.test(expires)) return 'invalid';
    const expected = Buffer.from(this.mac(subject, Number(expires)));
    const offered = Buffer.from(sig);
    if (offered.length !== expected.length || !timingSafeEqual(offered, expected)) return 'invalid';
    return Number(expires) * 1000 < this.now() ? 'expired' : 'ok';
  }

  private mac(subject: string, expires: number): string {
    // The newline cannot occur in an id, so "a" + "1\n..." never signs the same bytes as another pair.
    return createHmac('sha256', this.key).update(`${subject}\n${expires}`).digest('base64url');
  }
}
