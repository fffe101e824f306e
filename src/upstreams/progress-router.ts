import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Progress, ProgressToken } from '@modelcontextprotocol/sdk/types.js';

/**
 * Delivers an upstream's progress notifications synchronously, as they arrive.
 *
 * The SDK hands notifications to handlers a microtask late but settles responses at once, so
 * when a last progress message and the result arrive in the same read, the SDK drops the
 * progress. Intercepting our own tokens on the transport keeps the upstream's order intact.
 */
export class ProgressRouter {
  private readonly handlers = new Map<ProgressToken, (progress: Progress) => void>();
  private next = 0;

  constructor(private readonly prefix: string) {}

  /** Wraps the transport's message handler; call after the SDK has connected it. */
  attach(transport: Transport): void {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if ('method' in message && message.method === 'notifications/progress' && !('id' in message)) {
        const { progressToken, ...progress } = (message.params ?? {}) as Progress & { progressToken?: ProgressToken };
        const handler = progressToken === undefined ? undefined : this.handlers.get(progressToken);
        if (handler) {
          handler(progress as Progress);
          return;
        }
      }
      deliver?.(message, extra);
    };
  }

  register(handler: (progress: Progress) => void): { token: ProgressToken; release(): void } {
    const token = `${this.prefix}-${this.next++}`;
    this.handlers.set(token, handler);
    return { token, release: () => this.handlers.delete(token) };
  }
}
