import type { JSONRPCMessage, Progress, ProgressToken } from '@modelcontextprotocol/client';

/**
 * Delivers an upstream's progress notifications synchronously, as they arrive.
 *
 * The SDK hands notifications to handlers a microtask late but settles responses at once, so
 * when a last progress message and the result arrive in the same read, the SDK drops the
 * progress. Taking our own tokens off the transport keeps the upstream's order intact.
 */
export class ProgressRouter {
  private readonly handlers = new Map<ProgressToken, (progress: Progress) => void>();
  private next = 0;

  constructor(private readonly prefix: string) {}

  /**
   * A transport decorator's inbound hook: delivers progress for our tokens at once and takes it off the
   * connection (undefined); passes everything else on.
   */
  readonly take = (message: JSONRPCMessage): JSONRPCMessage | undefined => {
    if ('method' in message && message.method === 'notifications/progress' && !('id' in message)) {
      const { progressToken, ...progress } = (message.params ?? {}) as Progress & { progressToken?: ProgressToken };
      const handler = progressToken === undefined ? undefined : this.handlers.get(progressToken);
      if (handler) {
        handler(progress as Progress);
        return undefined;
      }
    }
    return message;
  };

  register(handler: (progress: Progress) => void): { token: ProgressToken; release(): void } {
    const token = `${this.prefix}-${this.next++}`;
    this.handlers.set(token, handler);
    return { token, release: () => this.handlers.delete(token) };
  }
}
