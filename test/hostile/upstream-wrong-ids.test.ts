// A server that answers what nobody asked: ids of another type ("1" for 1), ids never sent, the same answer twice,
// an answer without an id. Each is dropped; the call's own answer still reaches its client, once.
import { expect } from '@jest/globals';
import { textOf } from './harness/client.js';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

eachClient(
  'a server answering ids nobody sent',
  async (client) => {
    const first = await client.ask('tools/call', { name: `${HOSTILE}__act`, arguments: {} });
    expect(textOf(first)).toBe('the real answer');
    // The duplicate answer and the strays went nowhere: the next call gets its own answer, not a leftover.
    const second = await client.ask('tools/call', { name: `${HOSTILE}__act`, arguments: {} });
    expect(textOf(second)).toBe('the real answer');
  },
  {
    upstream: {
      async call(_params, connection, id) {
        const stray = (answerId: unknown) => ({
          jsonrpc: '2.0',
          id: answerId,
          result: { content: [{ type: 'text', text: `stray ${JSON.stringify(answerId)}` }] },
        });
        const lookalike = typeof id === 'number' ? String(id) : Number(id);
        for (const wrong of [lookalike, 999_999, 'never-sent', -1, 0, '__proto__', 'constructor', 1e300, null])
          await connection.send(stray(wrong));
        await connection.send({ jsonrpc: '2.0', result: { content: [] } });
        const real = { content: [{ type: 'text', text: 'the real answer' }] };
        await connection.answer(id, real);
        await connection.answer(id, { content: [{ type: 'text', text: 'a second answer to the same id' }] });
        return undefined;
      },
    },
  },
);
