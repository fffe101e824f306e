// A server that writes its answer a few bytes at a time, over seconds. Meanwhile the proxy serves everything else
// (the client's ping, the calm upstream); the slow answer arrives whole in the end.
import { expect } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { textOf } from './harness/client.js';
import { eachClient } from './harness/each-client.js';
import { CALM, HOSTILE } from './harness/proxy.js';

eachClient(
  'a server writing its answer slowly',
  async (client) => {
    const slow = client.ask('tools/call', { name: `${HOSTILE}__act`, arguments: {} }, { timeoutMs: 30_000 });
    // While the answer trickles in, the rest is served.
    const echo = await client.ask('tools/call', { name: `${CALM}__echo`, arguments: { message: 'meanwhile' } });
    expect(textOf(echo)).toBe('meanwhile');
    expect(textOf(await slow)).toBe('written slowly, byte by byte');
  },
  {
    timeoutMs: 90_000,
    upstream: {
      async call(_params, connection, id) {
        const line = `${JSON.stringify({
          jsonrpc: '2.0',
          id,
          result: { content: [{ type: 'text', text: 'written slowly, byte by byte' }] },
        })}\n`;
        for (let at = 0; at < line.length; at += 4) {
          await connection.write(line.slice(at, at + 4));
          await sleep(20);
        }
        return undefined;
      },
    },
  },
);
