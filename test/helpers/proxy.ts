import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULTS, type Config, type ServerConfig } from '../../src/config/types.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { createLogger, silentLogger } from '../../src/logger.js';

export const ALL_CLIENT_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
};

type ServerInput =
  | ({ name: string; command: string; args?: string[] } & Partial<Omit<ServerConfig, 'kind' | 'name'>>)
  | ({ name: string; url: string } & Partial<Omit<ServerConfig, 'kind' | 'name'>>);

/** A config with defaults filled in, for tests that build the gateway in-process. */
export function testConfig(servers: ServerInput[], gateway: Partial<Config['gateway']> = {}): Config {
  return {
    logLevel: 'silent',
    gateway: { ...DEFAULTS.gateway, startupTimeoutMs: 15_000, ...gateway },
    artifacts: {},
    servers: servers.map((s) => {
      const common = {
        enabled: true,
        timeoutMs: DEFAULTS.timeoutMs,
        tools: { allow: [], deny: [] },
        prefix: undefined,
        whenDown: DEFAULTS.whenDown,
        restart: { ...DEFAULTS.restart, initialDelayMs: 100, maxDelayMs: 1000 },
      };
      if ('url' in s) return { ...common, headers: {}, transport: 'auto', ...s, kind: 'http' } as ServerConfig;
      return { ...common, args: [], env: {}, ...s, kind: 'stdio' } as ServerConfig;
    }),
  };
}

export interface ProxyUnderTest {
  gateway: Gateway;
  client: Client;
  close(): Promise<void>;
}

/** Starts a gateway in this process and connects an SDK client to it in memory. */
export async function startProxy(
  config: Config,
  options: { capabilities?: ClientCapabilities; setup?: (client: Client) => void } = {},
): Promise<ProxyUnderTest> {
  const log = process.env.TEST_LOG ? createLogger(process.env.TEST_LOG as never) : silentLogger;
  const gateway = new Gateway(config, log);
  await gateway.start();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.createSession().connect(serverSide);
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: options.capabilities ?? ALL_CLIENT_CAPABILITIES });
  options.setup?.(client);
  await client.connect(clientSide);
  return {
    gateway,
    client,
    close: async () => {
      await client.close().catch(() => undefined);
      await gateway.stop();
    },
  };
}
