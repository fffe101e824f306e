// #34 finding 7: a JSONPath query artifact_read cannot evaluate is quoted whole in its error, with the library's own
// message: a 100 KB query gave a 100 KB error, into the model's context. The error must stay short, whatever the
// query; and any error of artifact_read is cut at the read limit, as its answers are.
import { expect } from '@jest/globals';
import { linksOf, textOf } from './harness/client.js';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

/** A JSON document on one line (a dump: stored whatever the client). */
const DOCUMENT = JSON.stringify({ items: Array.from({ length: 2_000 }, (_, i) => ({ id: i, name: `item ${i}` })) });
/** A query that fails to evaluate, 100 KB long. */
const QUERY = `$.items[?(@.name == '${'x'.repeat(100_000)}' &&& )]`;

eachClient(
  'artifact_read with a long JSONPath query that fails',
  async (client) => {
    const stored = await client.ask('tools/call', { name: `${HOSTILE}__act`, arguments: {} });
    const [uri] = linksOf(stored);
    expect(uri).toMatch(/^artifact:\/\//);
    const answer = await client.ask('tools/call', { name: 'artifact_read', arguments: { uri, query: QUERY } });
    const text = answer.error ? JSON.stringify(answer.error) : textOf(answer);
    expect(text.length).toBeLessThan(4_000);
  },
  {
    clients: [{ transport: 'stdio', era: 'legacy' }],
    upstream: { call: () => ({ content: [{ type: 'text', text: DOCUMENT }] }) },
  },
);

/** artifacts.tools.readLimit's default. */
const READ_LIMIT = 20_000;

eachClient(
  'artifact_read of a 100 KB URI it does not know',
  async (client) => {
    const uri = `artifact://hostile/${'x'.repeat(100_000)}.json`;
    const answer = await client.ask('tools/call', { name: 'artifact_read', arguments: { uri } });
    expect(answer).toMatchObject({ result: { isError: true } });
    expect(textOf(answer).length).toBeLessThan(READ_LIMIT + 100);
  },
  { clients: [{ transport: 'stdio', era: 'legacy' }] },
);
