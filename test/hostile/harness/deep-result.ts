// A probe of a deep tool result (#34 finding 3): the upstream answers a call with something nested tens of thousands
// of levels deep; while the proxy processes it, it still answers a ping, and then answers the call.
import { expect } from '@jest/globals';
import { eachClient } from './each-client.js';
import { HOSTILE } from './proxy.js';
import type { UpstreamConnection } from './scripted-upstream.js';

/** `answer` writes the deep result of the call `id` on `connection`; `title` names the probe. */
export function deepResultProbe(
  title: string,
  answer: (connection: UpstreamConnection, id: unknown) => Promise<void>,
): void {
  /** Resolves once the upstream has written the deep result: from then on the proxy has it to process. */
  let written: () => void = () => undefined;
  eachClient(
    title,
    async (client) => {
      const sent = new Promise<void>((resolve) => (written = resolve));
      const deep = client.ask('tools/call', { name: `${HOSTILE}__act`, arguments: {} }, { timeoutMs: 15_000 });
      // Awaited below, unless the ping fails first: then its own failure is not the probe's to report.
      deep.catch(() => undefined);
      await sent;
      // While the result is processed, the proxy still answers (the bound of ask: a frozen event loop fails here).
      expect(await client.ask(client.era === 'legacy' ? 'ping' : 'server/discover')).toMatchObject({
        result: expect.any(Object),
      });
      expect(await deep).toMatchObject({ result: expect.any(Object) });
    },
    {
      clients: [{ transport: 'stdio', era: 'legacy' }],
      upstream: {
        async call(_params, connection, id) {
          await answer(connection, id);
          written();
          return undefined;
        },
      },
    },
  );
}
