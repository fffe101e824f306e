import { createRequire } from 'node:module';
import { startProxy, testConfig } from '../helpers/proxy.js';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

test('lists tools of server-everything through the proxy', async () => {
  const proxy = await startProxy(testConfig([{ name: 'everything', command: process.execPath, args: [everything, 'stdio'] }]));
  try {
    const { tools } = await proxy.client.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    const result = await proxy.client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
  } finally {
    await proxy.close();
  }
});
