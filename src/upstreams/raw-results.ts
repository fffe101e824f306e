import type { JSONRPCMessage, ProgressToken, RequestId, Result } from '@modelcontextprotocol/client';

/**
 * The results of the proxy's requests exactly as the upstream sent them, taken off the wire.
 *
 * The SDK decodes every result by the negotiated era before handing it over: it drops `resultType`, rejects the
 * result kinds it does not drive itself (a task handle, `resultType: "task"`), and checks modern results against
 * its schemas. A relay passes on what the server said, so the upstream's own result is kept, found by the
 * progress token the proxy gives every request it forwards (the SDK leaves that token alone).
 */
export class RawResults {
  private readonly awaited = new Set<ProgressToken>();
  private readonly tokens = new Map<RequestId, ProgressToken>();
  private readonly results = new Map<ProgressToken, Result>();

  /** A request with this progress token is about to be sent. */
  expect(token: ProgressToken): void {
    this.awaited.add(token);
  }

  /** The result that answered the request with `token`, if one came; forgets it. */
  take(token: ProgressToken): Result | undefined {
    this.awaited.delete(token);
    for (const [id, known] of this.tokens) if (known === token) this.tokens.delete(id);
    const result = this.results.get(token);
    this.results.delete(token);
    return result;
  }

  /** Every message the proxy sends the upstream passes here: an expected request's id is noted. */
  outbound(message: JSONRPCMessage): JSONRPCMessage {
    if (!('method' in message) || !('id' in message) || message.id === undefined) return message;
    const token = (message.params?._meta as { progressToken?: ProgressToken } | undefined)?.progressToken;
    if (token !== undefined && this.awaited.has(token)) this.tokens.set(message.id, token);
    return message;
  }

  /** Every message from the upstream passes here: the result of a noted request is kept. */
  inbound(message: JSONRPCMessage): JSONRPCMessage {
    if ('method' in message || !('id' in message) || message.id === undefined) return message;
    const token = this.tokens.get(message.id);
    if (token === undefined) return message;
    this.tokens.delete(message.id);
    if ('result' in message) this.results.set(token, message.result);
    return message;
  }
}
