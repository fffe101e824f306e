// A hostile upstream, while it serves a call, sends a log message and a progress notification whose data nest
// 40 000 levels, with a number no double holds: JSON.parse with a reviver (which keeps such numbers) recursed over
// them, and the proxy dropped both lines as "not JSON". Now both reach the client (over stdio, where the probe
// client keeps everything it is sent), the call is answered, and the proxy goes on serving.
import { expect } from '@jest/globals';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

const DEPTH = 40_000;

eachClient(
  'log and progress notifications 40 000 levels deep during a call',
  async (client) => {
    const answer = await client.ask(
      'tools/call',
      { name: `${HOSTILE}__act`, arguments: {}, _meta: { progressToken: 'p1' } },
      { timeoutMs: 20_000 },
    );
    expect(answer).toMatchObject({ result: { content: [{ type: 'text', text: 'done' }] } });
    const received = (client as unknown as { received: Array<{ method?: string }> }).received;
    const methods = received.map((message) => message.method).filter((method) => method !== undefined);
    // A 2026-07-28 client hears a log message only on a call that asked for a level (relay/interceptors/logging.ts).
    const expected =
      client.era === 'legacy' ? ['notifications/message', 'notifications/progress'] : ['notifications/progress'];
    expect(methods).toEqual(expect.arrayContaining(expected));
  },
  {
    clients: [
      { transport: 'stdio', era: 'legacy' },
      { transport: 'stdio', era: 'modern' },
    ],
    upstream: {
      async call(params, connection) {
        const deep = `${'{"a":['.repeat(DEPTH / 2)}12345678901234567890${']}'.repeat(DEPTH / 2)}`;
        const token = JSON.stringify((params._meta as { progressToken?: unknown } | undefined)?.progressToken ?? 'p1');
        await connection.write(
          `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":${deep}}}\n` +
            `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${token},"progress":1,` +
            `"_meta":{"deep":${deep}}}}\n`,
        );
        return { content: [{ type: 'text', text: 'done' }] };
      },
    },
  },
);
