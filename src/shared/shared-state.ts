import { randomUUID } from 'node:crypto';
import type { Config, RedisOptions } from '../config/types.js';
import type { Logger } from '../logger.js';
import { ChangeFanout } from './change-fanout.js';
import { ForwardingMark } from './forwarding-mark.js';
import { connectRedis, redactedUrl, type Redis } from './redis-connection.js';
import { RedisEventStore } from './redis-event-store.js';
import { SessionDirectory } from './session-directory.js';
import { sharedSecret } from './shared-secrets.js';

/** What the replicas of one deployment share through Redis (see docs/s3-and-replicas.md, "Several replicas"). */
export interface SharedState {
  replica: { id: string; url: string };
  directory: SessionDirectory;
  events: RedisEventStore;
  fanout: ChangeFanout;
  /** The download links' key: artifacts.links.signingKey when set, else one made once for every replica. */
  linkKey: Buffer;
  /** The input bridge's requestState seal key. */
  sealKey: Buffer;
  /** Marks the requests one replica forwards to another (a key only the replicas share). */
  forwarding: ForwardingMark;
  /** Starts the heartbeat, saying the other replicas reach this one at `url`; once it listens. */
  announce(url: string): Promise<void>;
  close(): Promise<void>;
}

/** Connects to Redis (an error naming the URL when it cannot) and sets up what this replica shares. */
export async function connectSharedState(options: RedisOptions, config: Config, log: Logger): Promise<SharedState> {
  const commands = await connectRedis(options.url, log);
  let subscriber: Redis | undefined;
  try {
    subscriber = await connectRedis(options.url, log, 'subscriber');
    const replica = { id: randomUUID(), url: '' };
    const prefix = options.keyPrefix;
    const directory = new SessionDirectory(commands, prefix, replica, options, log);
    const configured = config.artifacts.links.signingKey;
    const state: SharedState = {
      replica,
      directory,
      events: new RedisEventStore(
        commands,
        {
          keyPrefix: prefix,
          ttlSeconds: options.eventTtlSeconds,
          maxEventsPerStream: config.httpOptions.eventStoreLimits.maxEventsPerStream,
          maxMessageBytes: config.httpOptions.eventStoreLimits.maxBytes,
        },
        log,
      ),
      fanout: new ChangeFanout(commands, subscriber, prefix, replica.id, log),
      linkKey: configured ? Buffer.from(configured, 'utf8') : await sharedSecret(commands, prefix, 'link-signing'),
      sealKey: await sharedSecret(commands, prefix, 'request-state'),
      forwarding: new ForwardingMark(await sharedSecret(commands, prefix, 'forwarding')),
      announce: async (url) => {
        replica.url = url;
        await directory.start();
        log.info({ redis: redactedUrl(options.url), replica: replica.id, url }, 'sharing state through redis');
      },
      close: async () => {
        await directory.stop();
        await Promise.all([commands.close(), subscriber!.close()].map((p) => p.catch(() => undefined)));
      },
    };
    return state;
  } catch (error) {
    await Promise.all([commands.close(), subscriber?.close()].map((p) => p?.catch(() => undefined)));
    throw error;
  }
}
