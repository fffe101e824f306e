import type { Transport, Progress, ProgressToken } from '@modelcontextprotocol/server';
import { DecoratedTransport } from '../transports/decorated-transport.js';

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

  /** The transport the SDK client connects to: the upstream's, with our tokens' progress taken off it. */
  decorate(transport: Transport): Transport {
    return new DecoratedTransport(transport, {
      inbound: (message) => {
        if ('method' in message && message.method === 'notifications/progress' && !('id' in message)) {
          const { progressToken, ...progress } = (message.params ?? {}) as Progress & { progressToken?: ProgressToken };
          const handler = progressToken === undefined ? undefined : this.handlers.get(progressToken);
          if (handler) {
            handler(progress as Progress);
            return undefined;
          }
        }
        return message;
      },
    });
  }

  register(handler: (progress: Progress) => void): { token: ProgressToken; release(): void } {
    const token = `${this.prefix}-${this.next++}`;
    this.handlers.set(token, handler);
    return { token, release: () => this.handlers.delete(token) };
  }
}
