import { createClient } from 'redis';
import type { Logger } from '../logger.js';

export type Redis = ReturnType<typeof createClient>;

/** How long a command may wait for Redis before it fails (and the caller falls back), in ms. */
const COMMAND_TIMEOUT_MS = 5000;
/** Longest pause between two reconnection attempts once the replica runs. */
const MAX_RECONNECT_DELAY_MS = 5000;

/** Redis could not be reached at startup; the message names the URL (without its password). */
export class RedisUnreachableError extends Error {
  constructor(url: string, cause: unknown) {
    super(`cannot reach Redis at ${redactedUrl(url)}: ${reason(cause)}`);
    this.name = 'RedisUnreachableError';
  }
}

/** The URL without its password, for messages and logs. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/(:\/\/[^:@/]*:)[^@/]*@/, '$1***@');
  }
}

/**
 * A connected client. At startup a failed connection is an error at once (a replica must not serve without the
 * state it shares); later, a lost connection is retried forever in the background while commands fail fast
 * (no offline queue), so a replica keeps serving what it can without Redis instead of waiting for it.
 */
export async function connectRedis(url: string, log: Logger, role = 'commands'): Promise<Redis> {
  let started = false;
  let lastLogged = 0;
  let client: Redis;
  try {
    client = createClient({
      url,
      disableOfflineQueue: true,
      commandOptions: { timeout: COMMAND_TIMEOUT_MS },
      socket: {
        connectTimeout: COMMAND_TIMEOUT_MS,
        reconnectStrategy: (retries: number, cause: Error) =>
          started ? Math.min(100 * 2 ** Math.min(retries, 6), MAX_RECONNECT_DELAY_MS) : cause,
      },
    });
  } catch (error) {
    // A URL the client cannot read (a port that is not a number, say): the same clear error as an unreachable one.
    throw new RedisUnreachableError(url, error);
  }
  client.on('error', (error: unknown) => {
    if (!started) return;
    // A Redis that is down errors on every reconnection attempt: one line per ten seconds says it all.
    if (Date.now() - lastLogged < 10_000) return;
    lastLogged = Date.now();
    log.warn({ redis: redactedUrl(url), role, err: reason(error) }, 'redis: connection lost; retrying');
  });
  client.on('ready', () => {
    if (started && lastLogged !== 0) log.info({ redis: redactedUrl(url), role }, 'redis: connected again');
    lastLogged = 0;
  });
  try {
    await client.connect();
  } catch (error) {
    throw new RedisUnreachableError(url, error);
  }
  started = true;
  return client;
}

function reason(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reason(error.errors[0]);
  if (error instanceof Error) return error.message || ((error as NodeJS.ErrnoException).code ?? error.name);
  return String(error);
}
