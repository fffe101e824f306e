// The artifact side of a gateway's start (src/relay/offload.ts, src/gateway/gateway.ts): the store opens while the
// upstreams start, before the gateway serves, and the startup collection, which looks at every record's bytes and
// removes what expired meanwhile, runs beside serving.
import { afterEach, expect, test } from '@jest/globals';
import { rm } from 'node:fs/promises';
import { Gateway } from '../../src/gateway/gateway.js';
import { silentLogger } from '../../src/logger.js';
import { Offload } from '../../src/relay/offload.js';
import { waitFor } from '../helpers/fixtures.js';
import { testConfig } from '../helpers/proxy.js';

const offloads: Offload[] = [];
afterEach(async () => {
  for (const offload of offloads.splice(0)) {
    offload.stop();
    await rm(offload.store.dir, { recursive: true, force: true });
  }
});

test('a directory store opens without waiting for its startup collection; the collection still runs', async () => {
  const offload = new Offload(testConfig([]), silentLogger);
  offloads.push(offload);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const collections: string[] = [];
  const gc = offload.store.gc.bind(offload.store);
  offload.store.gc = async (...args) => {
    collections.push('started');
    await held;
    const result = await gc(...args);
    collections.push('done');
    return result;
  };
  const opened = await Promise.race([
    offload.init().then(() => 'opened'),
    new Promise<string>((resolve) => setTimeout(() => resolve('held'), 5_000).unref()),
  ]);
  expect(opened).toBe('opened');
  // Open: payloads are stored meanwhile.
  const record = await offload.store.put({
    data: { bytes: Buffer.from('stored') },
    server: 's',
    tool: 't',
    owner: 'me',
  });
  expect((await offload.store.read(record.id)).toString()).toBe('stored');
  expect(collections).toEqual(['started']);
  release();
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(collections).toEqual(['started', 'done']);
});

test("a gateway's upstreams start while its store opens: neither waits for the other", async () => {
  const config = testConfig([{ name: 'basic', command: process.execPath, args: ['test/fixtures/basic-server.mjs'] }]);
  const gateway = new Gateway(config, silentLogger);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const init = gateway.offload.store.init.bind(gateway.offload.store);
  gateway.offload.store.init = async () => {
    await held;
    await init();
  };
  const started = gateway.start();
  try {
    await waitFor(() => gateway.upstreams[0]!.state === 'up', 15_000, 20, 'the upstream up while the store opens');
    release();
    await started;
    expect(gateway.offload.store.dir).toBe(config.artifacts.dir);
  } finally {
    release();
    await gateway.stop();
    await rm(config.artifacts.dir!, { recursive: true, force: true });
  }
});
