import { randomBytes } from 'node:crypto';
import type { Redis } from './redis-connection.js';

/**
 * A key every replica uses alike: the first replica to ask makes it (SET NX, so two starting at once cannot both
 * make one), the others read it. It never expires: links and sealed states made with it stay valid while they say.
 */
export async function sharedSecret(redis: Redis, keyPrefix: string, name: string): Promise<Buffer> {
  const key = `${keyPrefix}secret:${name}`;
  await redis.sendCommand(['SET', key, randomBytes(32).toString('base64'), 'NX']);
  const stored: unknown = await redis.sendCommand(['GET', key]);
  if (typeof stored !== 'string' || stored === '') throw new Error(`redis: the shared key ${key} is missing`);
  return Buffer.from(stored, 'base64');
}
