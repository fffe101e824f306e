// A server that floods the proxy with notifications during a call: log messages, progress for tokens nobody gave,
// list changes, methods nobody knows. The proxy passes on or drops each and stays responsive; the call is answered.
import { expect } from '@jest/globals';
import { textOf } from './harness/client.js';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

const FLOOD = 5_000;

eachClient(
  'a server flooding notifications during a call',
  async (client) => {
    const answer = await client.ask('tools/call', { name: `${HOSTILE}__act`, arguments: {} }, { timeoutMs: 30_000 });
    expect(textOf(answer)).toBe('after the flood');
  },
  {
    timeoutMs: 90_000,
    upstream: {
      async call(_params, connection) {
        const kinds = [
          (i: number) => ({ method: 'notifications/message', params: { level: 'info', data: `line ${i}` } }),
          (i: number) => ({ method: 'notifications/progress', params: { progressToken: `nobody-${i}`, progress: i } }),
          () => ({ method: 'notifications/tools/list_changed' }),
          (i: number) => ({ method: `notifications/unknown-${i % 7}`, params: { i } }),
        ];
        let batch = '';
        for (let i = 0; i < FLOOD; i++) {
          batch += `${JSON.stringify({ jsonrpc: '2.0', ...kinds[i % kinds.length]!(i) })}\n`;
          if (batch.length > 64 * 1024) {
            await connection.write(batch);
            batch = '';
          }
        }
        await connection.write(batch);
        return { content: [{ type: 'text', text: 'after the flood' }] };
      },
    },
  },
);
