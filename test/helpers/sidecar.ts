// An in-process HTTP gateway over the artifact fixture, and SDK clients that reach it with a token.
import { rm } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Config } from '../../src/config/types.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpHandle } from '../../src/http/server.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { FIXTURES, NODE } from './fixtures.js';
import { testConfig, type TestOptions } from './proxy.js';

export const TOKENS = [
  { name: 'alice', token: 'alice-token-0123456789abcdef' },
  { name: 'bob', token: 'bob-token-0123456789abcdef00' },
];
export const SIGNING_KEY = 'test-signing-key-0123456789abcdef0123456789';

export interface Sidecar {
  gateway: Gateway;
  http: HttpHandle;
  /** http://127.0.0.1:<port> */
  base: string;
  config: Config;
  close(): Promise<void>;
}

/** A gateway over the artifact fixture ("art"), served on 127.0.0.1 with the test tokens. */
export async function startSidecar(
  adjust: (config: Config) => void = () => undefined,
  options: TestOptions = {},
  log: Logger = silentLogger,
): Promise<Sidecar> {
  const config = testConfig([{ name: 'art', command: NODE, args: [FIXTURES.artifact] }], options);
  config.auth.tokens = TOKENS.map((t) => ({ ...t }));
  config.artifacts.links.signingKey = SIGNING_KEY;
  adjust(config);
  const gateway = new Gateway(config, log);
  await gateway.start();
  const http = await serveHttp(gateway, { host: '127.0.0.1', port: 0 }, log);
  return {
    gateway,
    http,
    base: `http://127.0.0.1:${http.port}`,
    config,
    close: async () => {
      await http.close();
      await gateway.stop();
      if (config.artifacts.dir) await rm(config.artifacts.dir, { recursive: true, force: true });
    },
  };
}

export interface HttpClient {
  client: Client;
  /** The mcp-session-id (Streamable HTTP) or sessionId (SSE) the gateway gave this client. */
  sessionId: string;
  close(): Promise<void>;
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/**
 * An SDK client over Streamable HTTP with the token in every request; `reconnect: false` when the gateway is meant to
 * go away.
 */
export async function connectHttp(
  base: string,
  token: string,
  options: { reconnect?: boolean } = {},
): Promise<HttpClient> {
  const reconnectionOptions = {
    maxRetries: 0,
    initialReconnectionDelay: 1000,
    maxReconnectionDelay: 1000,
    reconnectionDelayGrowFactor: 1,
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: bearer(token) },
    ...(options.reconnect === false ? { reconnectionOptions } : {}),
  });
  const client = new Client({ name: 'sidecar-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return { client, sessionId: transport.sessionId!, close: () => client.close() };
}

/** An SDK client over the legacy SSE transport (GET /sse, POST /messages). */
export async function connectSse(base: string, token: string): Promise<HttpClient> {
  const transport = new SSEClientTransport(new URL(`${base}/sse`), { requestInit: { headers: bearer(token) } });
  const client = new Client({ name: 'sidecar-sse-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return {
    client,
    sessionId: (transport as unknown as { _endpoint?: URL })._endpoint?.searchParams.get('sessionId') ?? '',
    close: () => client.close(),
  };
}

type Block = { type: string; text?: string; uri?: string };

/** The text blocks of a result, joined. */
export function textsOf(result: unknown): string {
  return ((result as { content?: Block[] }).content ?? [])
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

/** The artifact:// URIs a result links to. */
export function linksOf(result: unknown): string[] {
  return ((result as { content?: Block[] }).content ?? []).filter((b) => b.type === 'resource_link').map((b) => b.uri!);
}

/** The download URL a summary names. */
export function downloadUrlOf(result: unknown): string {
  const match = /^Download: (\S+)$/m.exec(textsOf(result));
  if (!match) throw new Error(`no Download: line in ${textsOf(result).slice(0, 500)}`);
  return match[1]!;
}
