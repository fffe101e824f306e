// #34 finding 3, in structuredContent: a tool result whose structuredContent nests objects and arrays 40 000 deep.
// The pipeline walks structuredContent as it walks JSON text (1.4 s at 4 000 levels before the fix, growing with the
// square of the depth); deeper, a JSON.stringify of it overflows the stack and the result passes on unchanged.
// Either way the proxy answers, and goes on answering meanwhile.
import { expect } from '@jest/globals';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

const DEPTH = 40_000;

/** Resolves once the upstream has written the deep result: from then on the proxy has it to process. */
let written: () => void = () => undefined;

eachClient(
  'a tool result whose structuredContent is 40 000 levels deep',
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
        // Written as text: the upstream's own JSON.stringify would overflow on it.
        const deep = `${'{"a":['.repeat(DEPTH / 2)}1${']}'.repeat(DEPTH / 2)}`;
        await connection.write(
          `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"ok"}],"structuredContent":${deep}}}\n`,
        );
        written();
        return undefined;
      },
    },
  },
);
