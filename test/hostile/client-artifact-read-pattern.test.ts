// #34 finding: artifact_read's `pattern` is a regular expression the client writes, run over a stored artifact's lines
// on the proxy's event loop. A pattern with nested quantifiers over lines that almost match ("(a+)+$" over "aaa…a!")
// backtracks for ever: one call froze every session. It must be answered (refused, or cut short) within the bound.
import { expect } from '@jest/globals';
import { linksOf } from './harness/client.js';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

/** Lines a nested quantifier cannot match but tries 2^40 ways to. */
const TEXT = `${'a'.repeat(40)}!\n`.repeat(2_000);

eachClient(
  'artifact_read with a catastrophically backtracking pattern',
  async (client) => {
    const stored = await client.ask('tools/call', { name: `${HOSTILE}__act`, arguments: {} });
    const [uri] = linksOf(stored);
    expect(uri).toMatch(/^artifact:\/\//);
    const answer = await client.ask(
      'tools/call',
      { name: 'artifact_read', arguments: { uri, pattern: '^(a+)+$' } },
      // Refused or cut short, an answer comes at once; a frozen proxy is killed after this.
      { timeoutMs: 5_000 },
    );
    expect(answer).toMatchObject({ result: expect.any(Object) });
  },
  {
    clients: [
      { transport: 'stdio', era: 'legacy' },
      { transport: 'http', era: 'legacy' },
    ],
    upstream: { call: () => ({ content: [{ type: 'text', text: TEXT }] }) },
  },
);
