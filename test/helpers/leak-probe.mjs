// Runs the built gateway in this process (node --expose-gc), calls big-image N times and prints, as
// one JSON line, heap and external memory after a full GC following each call.
// Usage: node --expose-gc test/helpers/leak-probe.mjs <big-result-server.mjs> <calls> <mb>
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { defaultConfig, defaultServerSettings } from '../../dist/config/types.js';
import { Gateway } from '../../dist/gateway/gateway.js';
import { silentLogger } from '../../dist/logger.js';

const [fixture, calls, mb] = process.argv.slice(2);
const dir = await mkdtemp(join(tmpdir(), 'leak-probe-'));
const config = defaultConfig([
  { ...defaultServerSettings(), kind: 'stdio', name: 'big', command: process.execPath, args: [fixture], env: {} },
]);
config.artifacts.dir = dir;
const gateway = new Gateway(config, silentLogger);
await gateway.start();
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await gateway.createSession().connect(serverSide);
const client = new Client({ name: 'leak-probe', version: '1' });
await client.connect(clientSide);

const samples = [];
for (let i = 0; i < Number(calls); i++) {
  await client.callTool({ name: 'big-image', arguments: { mb: Number(mb) } });
  globalThis.gc();
  await new Promise((r) => setTimeout(r, 50));
  globalThis.gc();
  const { heapUsed, external } = process.memoryUsage();
  samples.push({ heap: heapUsed, external });
}
await client.close();
await gateway.stop();
await rm(dir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(samples)}\n`);
