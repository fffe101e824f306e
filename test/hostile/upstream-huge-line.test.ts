// A server that writes a 100 MB line that is no JSON, then its answer. The line is read and dropped (never held
// twice, never parsed into a 100 MB object); the answer after it reaches the client.
import { expect } from '@jest/globals';
import { textOf } from './harness/client.js';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

const CHUNK = Buffer.alloc(1024 * 1024, 'z');
const MEGABYTES = 100;

eachClient(
  'a server writing a 100 MB line of garbage before its answer',
  async (client) => {
    const answer = await client.ask('tools/call', { name: `${HOSTILE}__act`, arguments: {} }, { timeoutMs: 60_000 });
    expect(textOf(answer)).toBe('after the huge line');
  },
  {
    clients: [{ transport: 'stdio', era: 'legacy' }],
    timeoutMs: 120_000,
    upstream: {
      async call(_params, connection) {
        for (let i = 0; i < MEGABYTES; i++) await connection.write(CHUNK);
        await connection.write('\n');
        return { content: [{ type: 'text', text: 'after the huge line' }] };
      },
    },
  },
);
