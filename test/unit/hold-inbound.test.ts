import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { DecoratedTransport } from '../../src/transports/decorated-transport.js';
import { holdInbound } from '../../src/transports/hold-inbound.js';

const ping = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'ping' });

describe('holdInbound', () => {
  test('shows the first message at once and passes everything on, in order, only once opened', async () => {
    const [near, far] = InMemoryTransport.createLinkedPair();
    const hold = holdInbound();
    const decorated = new DecoratedTransport(near, hold.hooks);
    const seen: JSONRPCMessage[] = [];
    decorated.onmessage = (message) => void seen.push(message);
    await decorated.start();
    await far.start();
    await far.send(ping(1));
    await far.send(ping(2));
    expect(await hold.first).toEqual(ping(1));
    expect(seen).toEqual([]);
    hold.open();
    await far.send(ping(3));
    expect(seen).toEqual([ping(1), ping(2), ping(3)]);
  });

  test('a transport that closes before any message: the first message is undefined', async () => {
    const [near, far] = InMemoryTransport.createLinkedPair();
    const hold = holdInbound();
    const decorated = new DecoratedTransport(near, hold.hooks);
    await decorated.start();
    await far.start();
    await far.close();
    expect(await hold.first).toBeUndefined();
  });
});
