// The built-in ABP backend behind a real in-process gateway, with an SDK client connected in memory:
// what a client of `mcp-offload --abp` sees, minus stdio.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Gateway } from '../../src/gateway/gateway.js';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { abpRequestTimeoutMs, resolveAbpOptions, type AbpOptionsDoc } from '../../src/config/abp.js';
import { defaultServerSettings, type AbpServerConfig, type Config } from '../../src/config/types.js';
import { startProxy, testConfig, type ProxyUnderTest, type TestOptions } from './proxy.js';

export interface AbpGatewayOptions extends TestOptions {
  name?: string;
  abp?: AbpOptionsDoc;
  capabilities?: ClientCapabilities;
  setup?: (client: Client) => void;
  /** Other upstreams next to the browser backend. */
  servers?: Parameters<typeof testConfig>[0];
  /** The backends; default: one named `name` with the `abp` settings. */
  abpServers?: AbpServerConfig[];
}

export interface AbpGateway extends ProxyUnderTest {
  config: Config;
  /** Log records (pino objects) of the gateway and the backend, at debug level. */
  logs(): Array<Record<string, unknown>>;
}

/** A `type: abp` server as the config loader would build it, with quick retries and no environment. */
export function abpServer(name = 'browser', abp: AbpOptionsDoc = {}): AbpServerConfig {
  const options = resolveAbpOptions({ retries: { initialDelayMs: 20 }, ...abp }, {});
  return { ...defaultServerSettings(), kind: 'abp', name, timeoutMs: abpRequestTimeoutMs(options), abp: options };
}

export async function startAbpGateway(options: AbpGatewayOptions = {}): Promise<AbpGateway> {
  const config = testConfig(options.servers ?? [], options);
  config.servers.push(...(options.abpServers ?? [abpServer(options.name, options.abp)]));
  const records: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim()) records.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const log = pino({ level: 'debug' }, sink);
  const proxy = await startProxy(config, { capabilities: options.capabilities, setup: options.setup, log });
  return { ...proxy, config, logs: () => records };
}

/** Another client of the same gateway (its own downstream session). */
export async function connectClient(gateway: Gateway, capabilities: ClientCapabilities = {}): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.createSession().connect(serverSide);
  const client = new Client({ name: 'second-client', version: '1.0.0' }, { capabilities });
  await client.connect(clientSide);
  return client;
}

/** Polls until the condition holds (events arrive asynchronously); never a timing assertion. */
export async function waitFor(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The `File saved:` paths of a result's summaries, in order. */
export function savedPaths(result: CallToolResult): string[] {
  return textBlocks(result).flatMap((text) => [...text.matchAll(/^File saved: (.+)$/gm)].map((m) => m[1]!));
}

export function savedBytes(result: CallToolResult, index = 0): Buffer {
  const path = savedPaths(result)[index];
  if (!path) throw new Error(`no file saved in ${JSON.stringify(result.content)}`);
  return readFileSync(path);
}

export function textBlocks(result: CallToolResult): string[] {
  return result.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
}

export function resourceLinks(result: CallToolResult): Array<{ uri: string; mimeType?: string; size?: number }> {
  return result.content.flatMap((block) => (block.type === 'resource_link' ? [block] : []));
}

/** The JSON a passthrough result carries in its single text block. */
export function jsonOf(result: CallToolResult): Record<string, unknown> {
  return JSON.parse(textBlocks(result).join('')) as Record<string, unknown>;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export const MINI_APP_DIR = fileURLToPath(new URL('../fixtures/abp-mini-app/', import.meta.url));

/** Serves a fixture directory on 127.0.0.1 (index.html at /). */
export async function serveDirectory(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const types: Record<string, string> = { html: 'text/html; charset=utf-8', json: 'application/json' };
  const server = http.createServer((req, res) => {
    const name = new URL(req.url ?? '/', 'http://x').pathname.slice(1) || 'index.html';
    try {
      const body = /^[\w.-]+$/.test(name) ? readFileSync(join(dir, name)) : undefined;
      if (!body) throw new Error('not found');
      res.writeHead(200, { 'content-type': types[name.split('.').pop()!] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Main browser processes (not their renderers and helpers) started by this test file. */
export function browserCount(processes: Array<{ command: string }>): number {
  return processes.filter((p) => !p.command.includes('--type=')).length;
}
