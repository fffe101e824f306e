// #34 finding 3, with objects: a tool result whose text is JSON objects nested 40 000 deep ('{"a":{"a":…}}'). As with
// the arrays of upstream-deep-json-text.test.ts, the pipeline's walks copied a value's path for each level (time
// growing with the square of the depth: 22 s at 20 000 levels before the fix, every session frozen meanwhile).
import { expect } from '@jest/globals';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

const DEPTH = 40_000;

/** Resolves once the upstream has written the deep result: from then on the proxy has it to process. */
let written: () => void = () => undefined;

eachClient(
  'a tool result whose text is JSON objects 40 000 levels deep',
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
        await connection.answer(id, {
          content: [{ type: 'text', text: `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}` }],
        });
        written();
        return undefined;
      },
    },
  },
);
