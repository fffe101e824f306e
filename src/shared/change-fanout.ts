import type { Notification } from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import type { Redis } from './redis-connection.js';

/** The changes worth telling other replicas' clients: what listen streams and legacy sessions hear of. */
const FANNED_OUT = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
]);

interface ChangeMessage {
  /** The replica that saw it. */
  from: string;
  /** The server whose shared connection saw it (each replica has its own connection of that server). */
  server: string;
  notification: Notification;
}

/**
 * list_changed and resources/updated seen on this replica's shared connections, published to the others over Redis
 * pub/sub, and theirs delivered here. Each change is published once by the replica that saw it, and a replica
 * ignores its own messages, so every client hears of a change once. (Pub/sub is fire and forget: a replica that is
 * disconnected from Redis meanwhile misses changes, as a client does whose listen stream breaks.)
 */
export class ChangeFanout {
  private readonly channel: string;

  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    keyPrefix: string,
    private readonly replica: string,
    private readonly log: Logger,
  ) {
    this.channel = `${keyPrefix}changes`;
  }

  /** Delivers the other replicas' changes to `deliver` from now on. */
  async listen(deliver: (notification: Notification, server: string) => void): Promise<void> {
    await this.subscriber.subscribe(this.channel, (raw: string) => {
      let message: ChangeMessage;
      try {
        message = JSON.parse(raw) as ChangeMessage;
      } catch {
        return this.log.warn({ channel: this.channel }, 'redis: a change message that is not JSON; ignored');
      }
      if (message.from === this.replica || !FANNED_OUT.has(message.notification?.method)) return;
      deliver(message.notification, String(message.server));
    });
  }

  /** Tells the other replicas of a change seen here. */
  publish(notification: Notification, server: string): void {
    if (!FANNED_OUT.has(notification.method)) return;
    const message: ChangeMessage = { from: this.replica, server, notification };
    this.publisher.publish(this.channel, JSON.stringify(message)).catch((error: unknown) => {
      this.log.warn(
        { err: String(error), method: notification.method },
        'redis: a change was not told to the other replicas',
      );
    });
  }
}
