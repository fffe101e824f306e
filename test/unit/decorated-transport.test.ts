import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { DecoratedTransport } from '../../src/transports/decorated-transport.js';

const ping = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'ping' });

describe('DecoratedTransport', () => {
  test('passes what comes in through the inbound hook, which may keep a message to itself', async () => {
    const [near, far] = InMemoryTransport.createLinkedPair();
    const decorated = new DecoratedTransport(near, {
      inbound: (message) => ('id' in message && message.id === 2 ? undefined : message),
    });
    const seen: JSONRPCMessage[] = [];
    decorated.onmessage = (message) => void seen.push(message);
    await decorated.start();
    await far.start();
    await far.send(ping(1));
    await far.send(ping(2));
    await far.send(ping(3));
    expect(seen).toEqual([ping(1), ping(3)]);
  });

  test('sends what the outbound hook makes of a message', async () => {
    const [near, far] = InMemoryTransport.createLinkedPair();
    const received: JSONRPCMessage[] = [];
    far.onmessage = (message) => void received.push(message);
    const decorated = new DecoratedTransport(near, { outbound: () => ping(9) });
    await decorated.start();
    await far.start();
    await decorated.send(ping(1));
    expect(received).toEqual([ping(9)]);
  });

  test('keeps the handlers its owner set on the inner transport, and runs afterClose once the inner one has closed', async () => {
    const [near] = InMemoryTransport.createLinkedPair();
    const order: string[] = [];
    near.onclose = () => void order.push('owner onclose');
    const decorated = new DecoratedTransport(near, { afterClose: async () => void order.push('afterClose') });
    decorated.onclose = () => void order.push('decorator onclose');
    await decorated.start();
    await decorated.close();
    expect(order).toEqual(['owner onclose', 'decorator onclose', 'afterClose']);
  });
});
