// A server that answers with a message nested 100 000 levels deep (JSON.parse and every walk over it recurse), then
// with its real answer. The deep line is dropped or answered, never fatal: the real answer still reaches the client.
import { expect } from '@jest/globals';
import { textOf } from './harness/client.js';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

const DEPTH = 100_000;

eachClient(
  'a server answering with a message 100 000 levels deep',
  async (client) => {
    const first = await client.ask('tools/call', { name: `${HOSTILE}__act`, arguments: {} }, { timeoutMs: 20_000 });
    // The deep answer is either passed on or dropped as unreadable; then the next call gets its own answer.
    expect(first).toMatchObject({ id: expect.anything() });
    const second = await client.ask('tools/call', { name: `${HOSTILE}__act`, arguments: { plain: true } });
    expect(textOf(second)).toBe('plain');
  },
  {
    clients: [
      { transport: 'stdio', era: 'legacy' },
      { transport: 'http', era: 'legacy' },
    ],
    upstream: {
      async call(params, connection, id) {
        if ((params.arguments as { plain?: boolean }).plain) return { content: [{ type: 'text', text: 'plain' }] };
        const deep = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
        await connection.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[],"deep":${deep}}}\n`);
        // If the deep line was dropped, this answers the call; if it was delivered, this is a stray the proxy drops.
        await connection.answer(id, { content: [{ type: 'text', text: 'after the deep line' }] });
        return undefined;
      },
    },
  },
);
