// #34 finding 3: a tool result whose text is JSON nested 20 000 deep ("[[[…]]]") went through the pipeline's JSON
// readers (detection, the outline of a stored document) in time that grows with the square of the depth, on the
// event loop: 15 s here, every session frozen meanwhile. The probe nests twice as deep (a minute here), so no machine
// is fast enough to hide it within the bounds; a proxy that walks such text in bounded time answers at once.
import { expect } from '@jest/globals';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

const DEPTH = 40_000;

/** Resolves once the upstream has written the deep result: from then on the proxy has it to process. */
let written: () => void = () => undefined;

eachClient(
  'a tool result whose text is JSON 40 000 levels deep',
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
        await connection.answer(id, { content: [{ type: 'text', text: `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}` }] });
        written();
        return undefined;
      },
    },
  },
);
