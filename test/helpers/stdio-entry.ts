// The proxy's stdio entry (serveStdioHeld) over real upstreams, on an in-memory wire in place of stdin/stdout, so a
// test can tell which requests the SDK's server dispatched and which the lean paths took.
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { rm } from 'node:fs/promises';
import { serveStdioHeld } from '../../src/cli/run.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { silentLogger } from '../../src/logger.js';
import { waitFor } from './fixtures.js';
import { testConfig } from './proxy.js';
import { recordServedBy, type ServedBy } from './served-by.js';

export type Message = JSONRPCMessage & {
  id?: RequestId;
  result?: Record<string, unknown>;
  error?: { message: string };
};

export interface StdioEntry extends ServedBy {
  client: InMemoryTransport;
  /** Every message the client received, in order. */
  received: Message[];
  /** Sends a request and resolves with its answer. */
  ask(id: RequestId, params: Record<string, unknown>, method?: string): Promise<Message>;
  close(): Promise<void>;
}

/** Starts a one-client gateway over `servers` behind the stdio entry, its wire open. */
export async function startStdioEntry(servers: Parameters<typeof testConfig>[0]): Promise<StdioEntry> {
  const config = testConfig(servers);
  const gateway = new Gateway(config, silentLogger, { oneClient: true });
  const served = recordServedBy(gateway);
  const [wire, client] = InMemoryTransport.createLinkedPair();
  const stdio = serveStdioHeld(gateway, silentLogger, () => undefined, wire);
  await gateway.start();
  stdio.hold.open();
  const received: Message[] = [];
  client.onmessage = (message) => void received.push(message as Message);
  await client.start();
  const answer = async (id: RequestId): Promise<Message> => {
    await waitFor(() => received.some((m) => m.id === id && !('method' in m)), 10_000);
    return received.find((m) => m.id === id && !('method' in m))!;
  };
  return {
    ...served,
    clear: served.clear,
    client,
    received,
    ask: async (id, params, method = 'tools/call') => {
      await client.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
      return answer(id);
    },
    close: async () => {
      await client.close();
      await gateway.stop();
      if (config.artifacts.dir) await rm(config.artifacts.dir, { recursive: true, force: true });
    },
  };
}
