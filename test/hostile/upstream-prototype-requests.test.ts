// #34 finding 5, the server's side: requests and notifications a server sends the proxy, named like Object.prototype's
// members, with ids of the same names. Every request is answered (the proxy is the server's client), none breaks
// the call it came during.
import { expect } from '@jest/globals';
import { textOf } from './harness/client.js';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';
import type { Message } from './harness/scripted-upstream.js';

const NAMES = [...Object.getOwnPropertyNames(Object.prototype), 'then', 'prototype'];

eachClient(
  'a server sending requests and notifications named like Object.prototype members',
  async (client) => {
    const answer = await client.ask('tools/call', { name: `${HOSTILE}__act`, arguments: {} }, { timeoutMs: 30_000 });
    const report = JSON.parse(textOf(answer)) as Array<{ method: string; answer: Message }>;
    expect(report).toHaveLength(NAMES.length);
    for (const { method, answer: got } of report)
      expect({ method, got }).toMatchObject({ method, got: { error: { code: expect.any(Number) } } });
  },
  {
    // A 2026-07-28 client's call holds a server's questions for the client's retry (input_required); these are for
    // 2025 clients, which are asked directly.
    clients: [
      { transport: 'stdio', era: 'legacy' },
      { transport: 'http', era: 'legacy' },
    ],
    timeoutMs: 90_000,
    upstream: {
      async call(_params, connection) {
        for (const method of NAMES) {
          await connection.notify(method, { __proto__: { polluted: true }, constructor: 'x' } as never);
          await connection.send({ jsonrpc: '2.0', id: method, method: 'notifications/message', params: {} });
        }
        const report = [];
        for (const method of NAMES) report.push({ method, answer: await connection.request(method, {}, 20_000) });
        return { content: [{ type: 'text', text: JSON.stringify(report) }] };
      },
    },
  },
);
