// #34 finding: a client line of 152 MB (a request with a huge argument) on the proxy's stdio. The proxy reads it,
// answers it (here: no tool of that name), and serves on.
import { expect } from '@jest/globals';
import { eachClient } from './harness/each-client.js';
import type { StdioClient } from './harness/stdio-client.js';

const MEGABYTES = 152;

eachClient(
  'a 152 MB request line from a client on stdio',
  async (client) => {
    const stdio = client as StdioClient;
    const chunk = 'y'.repeat(1024 * 1024);
    const id = 'huge';
    const answered = stdio.askLine(
      '{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"nothing-of-that-name","arguments":{"blob":"',
      id,
      'a 152 MB tools/call',
      90_000,
    );
    for (let i = 0; i < MEGABYTES; i++) await stdio.write(chunk);
    await stdio.write('"}}}\n');
    expect(await answered).toMatchObject({ id, error: { message: expect.stringMatching(/not found/) } });
  },
  { clients: [{ transport: 'stdio', era: 'legacy' }], timeoutMs: 150_000 },
);
