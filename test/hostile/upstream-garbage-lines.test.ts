// A server that writes what is not JSON-RPC before its answer: text, binary bytes, cut JSON, JSON that is no message.
// The proxy skips each line and still takes the answer that follows.
import { expect } from '@jest/globals';
import { textOf } from './harness/client.js';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

const GARBAGE: Array<string | Buffer> = [
  'not json at all\n',
  Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80, 0x0a]),
  '{"jsonrpc":"2.0","id":\n',
  '[1,2,3]\n',
  'null\n',
  '42\n',
  '"a string"\n',
  '{}\n',
  '{"jsonrpc":"2.0"}\n',
  '{"jsonrpc":"2.0","id":{"an":"object"},"result":{}}\n',
  '{"jsonrpc":"2.0","method":42}\n',
  '\n\n\r\n   \n',
  `${'x'.repeat(100_000)}\n`,
];

eachClient(
  'a server writing garbage lines before its answer',
  async (client) => {
    const answer = await client.ask('tools/call', { name: `${HOSTILE}__act`, arguments: {} });
    expect(textOf(answer)).toBe('answered after the garbage');
  },
  {
    upstream: {
      async call(_params, connection) {
        for (const piece of GARBAGE) await connection.write(piece);
        return { content: [{ type: 'text', text: 'answered after the garbage' }] };
      },
    },
  },
);
