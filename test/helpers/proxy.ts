import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ClientCapabilities, Implementation } from '@modelcontextprotocol/sdk/types.js';
import {
  DEFAULTS,
  defaultConfig,
  defaultServerSettings,
  type Config,
  type HttpServerConfig,
  type ServerConfig,
  type StdioServerConfig,
} from '../../src/config/types.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { createLogger, silentLogger, type Logger } from '../../src/logger.js';

export const ALL_CLIENT_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
};

export type ServerInput =
  | ({ name: string; command: string; args?: string[] } & Partial<Omit<StdioServerConfig, 'kind' | 'name'>>)
  | ({ name: string; url: string } & Partial<Omit<HttpServerConfig, 'kind' | 'name'>>);

export interface TestOptions {
  gateway?: Partial<Config['gateway']>;
  artifacts?: Partial<Omit<Config['artifacts'], 'tools'>> & { tools?: Partial<Config['artifacts']['tools']> };
  pipeline?: Config['pipeline'];
  rules?: Config['rules'];
}

/** Options that switch every rewriting off: the proxy is a plain gateway. */
export const NO_OFFLOAD: TestOptions = {
  pipeline: { mode: 'passthrough' },
  artifacts: { resources: false, tools: { enabled: false } },
};

let dirs = 0;

/** A fresh artifact directory under the OS temp dir for each config. */
export function testArtifactDir(): string {
  return join(tmpdir(), `mcp-offload-test-${process.pid}-${Date.now()}-${dirs++}`);
}

/** A config with defaults filled in, for tests that build the gateway in-process. */
export function testConfig(servers: ServerInput[], options: TestOptions = {}): Config {
  const defaults = defaultConfig();
  return {
    ...defaults,
    logLevel: 'silent',
    gateway: { ...defaults.gateway, startupTimeoutMs: 15_000, ...options.gateway },
    artifacts: {
      ...DEFAULTS.artifacts,
      dir: testArtifactDir(),
      ...options.artifacts,
      tools: { ...DEFAULTS.artifacts.tools, ...options.artifacts?.tools },
    },
    pipeline: options.pipeline ?? {},
    rules: options.rules ?? [],
    servers: servers.map((s) => {
      const common = {
        ...defaultServerSettings(),
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
  options: { capabilities?: ClientCapabilities; setup?: (client: Client) => void; log?: Logger } = {},
): Promise<ProxyUnderTest> {
  const log = options.log ?? (process.env.TEST_LOG ? createLogger(process.env.TEST_LOG as never) : silentLogger);
  const gateway = new Gateway(config, log);
  await gateway.start();
  const client = await connectAs(gateway, { name: 'test-client', version: '1.0.0' }, options);
  return {
    gateway,
    client,
    close: async () => {
      await client.close().catch(() => undefined);
      await gateway.stop();
      if (config.artifacts.dir?.startsWith(tmpdir())) await rm(config.artifacts.dir, { recursive: true, force: true });
    },
  };
}

/** One more client of a running gateway, introducing itself as `clientInfo` (its name picks its budget). */
export async function connectAs(
  gateway: Gateway,
  clientInfo: Implementation,
  options: { capabilities?: ClientCapabilities; setup?: (client: Client) => void } = {},
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.createSession().connect(serverSide);
  const client = new Client(clientInfo, { capabilities: options.capabilities ?? ALL_CLIENT_CAPABILITIES });
  options.setup?.(client);
  await client.connect(clientSide);
  return client;
}
