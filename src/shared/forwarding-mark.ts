import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The mark a replica puts on a request it forwards to another: the replica it is meant for, and an HMAC over that
 * with a key only the replicas share. A client cannot forge one, so it cannot make a replica adopt a session its
 * live holder still serves (a request with a mark that does not verify is treated as unmarked).
 */
export class ForwardingMark {
  constructor(private readonly key: Buffer) {}

  /** The header value for a request meant for `replica`. */
  make(replica: string): string {
    return `${replica} ${this.mac(replica)}`;
  }

  /** The replica a genuine mark names; undefined for no mark or a forged one. */
  read(value: string | string[] | undefined): string | undefined {
    if (typeof value !== 'string') return undefined;
    const [replica, mac] = value.split(' ');
    if (!replica || !mac) return undefined;
    const expected = Buffer.from(this.mac(replica));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected) ? replica : undefined;
  }

  private mac(replica: string): string {
    return createHmac('sha256', this.key).update(`forwarded for ${replica}`).digest('base64url');
  }
}
