// Runs a client-side probe as every kind of client: over stdio and over HTTP, in both protocol eras. A proxy on stdio
// has one client, so each stdio era gets a proxy of its own; one HTTP proxy serves both eras.
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import { ANSWER_BOUND_MS, within, type Era, type ProbeClient } from './client.js';
import { startHostileProxy, type HostileProxy, type HostileProxyOptions } from './proxy.js';
import { ScriptedUpstream, type UpstreamScript } from './scripted-upstream.js';
import { expectStillServing } from './still-serving.js';

export type Transport = 'stdio' | 'http';

export const CASES: Array<{ transport: Transport; era: Era }> = [
  { transport: 'stdio', era: 'legacy' },
  { transport: 'stdio', era: 'modern' },
  { transport: 'http', era: 'legacy' },
  { transport: 'http', era: 'modern' },
];

export interface ClientProbe {
  /** The scripted upstream every proxy of the probe serves (default: a plain one). */
  upstream?: UpstreamScript;
  proxy?: Omit<HostileProxyOptions, 'upstream' | 'http'>;
  /** How long one case may take in all. */
  timeoutMs?: number;
  /** Which clients to probe as (default: all four). */
  clients?: Array<{ transport: Transport; era: Era }>;
  /** Marks the cases as expected to fail (a finding fixed in another branch): they pass once it is fixed. */
  failing?: boolean;
}

/**
 * One test per client kind: `probe` does its worst through `client`, then the proxy must still serve that client,
 * its calm upstream, and (over HTTP) a session of the other era.
 */
export function eachClient(
  title: string,
  probe: (client: ProbeClient, context: { proxy: HostileProxy; upstream: ScriptedUpstream }) => Promise<void>,
  options: ClientProbe = {},
): void {
  describe(title, () => {
    let upstream: ScriptedUpstream;
    const proxies = new Map<string, HostileProxy>();
    beforeAll(async () => {
      upstream = await ScriptedUpstream.start(options.upstream);
    });
    afterAll(async () => {
      await Promise.all([...proxies.values()].map((proxy) => proxy.stop()));
      await upstream.close();
    });
    const keyOf = (transport: Transport, era: Era) => (transport === 'http' ? 'http' : `stdio-${era}`);
    const proxyFor = async (transport: Transport, era: Era): Promise<HostileProxy> => {
      const key = keyOf(transport, era);
      let proxy = proxies.get(key);
      if (!proxy) {
        proxy = await startHostileProxy({ ...options.proxy, upstream, http: transport === 'http' });
        proxies.set(key, proxy);
      }
      return proxy;
    };
    for (const { transport, era } of options.clients ?? CASES) {
      const run = options.failing ? test.failing : test;
      run(
        `as a ${era} client over ${transport}`,
        async () => {
          const proxy = await proxyFor(transport, era);
          try {
            const client = await proxy.client(era);
            try {
              await probe(client, { proxy, upstream });
              await expectStillServing(proxy, client);
            } finally {
              if (transport === 'http') await within(client.close(), ANSWER_BOUND_MS, 'DELETE').catch(() => undefined);
            }
          } catch (error) {
            // A proxy that failed a probe may be spinning (a frozen event loop): it is stopped now, not after the
            // other cases, and they get a fresh one.
            proxies.delete(keyOf(transport, era));
            await proxy.stop();
            throw error;
          }
        },
        options.timeoutMs ?? 60_000,
      );
    }
  });
}
