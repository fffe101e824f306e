// #34 finding: a tool result whose text is JSON nested 20 000 deep ("[[[…]]]") went through the pipeline's JSON
// readers (detection, the outline of a stored document) recursively. It must be answered, and the proxy serve on.
import { expect } from '@jest/globals';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

const DEPTH = 20_000;

eachClient(
  'a tool result whose text is JSON 20 000 levels deep',
  async (client) => {
    const answer = await client.ask('tools/call', { name: `${HOSTILE}__act`, arguments: {} }, { timeoutMs: 20_000 });
    expect(answer).toMatchObject({ result: expect.any(Object) });
  },
  {
    // #34 finding "deep JSON text result [[[...]]] depth 20,000": fixed in another branch (src/pipeline).
    failing: true,
    clients: [{ transport: 'stdio', era: 'legacy' }],
    upstream: { call: () => ({ content: [{ type: 'text', text: `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}` }] }) },
  },
);
