// What every probe checks last: the proxy survived what it was sent and still serves. A frozen event loop, a crash or
// a session left broken fails here, within the answer bound, whatever the probe itself looked at.
import { expect } from '@jest/globals';
import { textOf, type ProbeClient } from './client.js';
import { CALM, type HostileProxy } from './proxy.js';

/**
 * `client` is still answered (ping for a 2025 client, server/discover for a 2026-07-28 one: each era's "are you
 * there"), the calm upstream still answers through it, and over HTTP a session opened now, of the other era, is served
 * too (what one session did reached no other).
 */
export async function expectStillServing(proxy: HostileProxy, client: ProbeClient): Promise<void> {
  await expectServed(client);
  if (proxy.endpoint) {
    const other = await proxy.client(client.era === 'legacy' ? 'modern' : 'legacy');
    try {
      await expectServed(other);
    } finally {
      await other.close();
    }
  }
}

async function expectServed(client: ProbeClient): Promise<void> {
  const alive = await client.ask(client.era === 'legacy' ? 'ping' : 'server/discover');
  expect(alive).toMatchObject({ result: expect.any(Object) });
  const echo = await client.ask('tools/call', { name: `${CALM}__echo`, arguments: { message: 'still here' } });
  expect(textOf(echo)).toBe('still here');
}
