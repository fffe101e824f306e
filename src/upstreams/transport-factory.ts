import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  InMemoryTransport,
} from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import type { AbpServerConfig, HttpServerConfig, ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { ProcessTransport } from '../transports/process-transport.js';
import { DecoratedTransport } from '../transports/decorated-transport.js';

export interface ConnectedClient {
  client: Client;
  /** The upstream's own transport (the client may be connected to a decoration of it). */
  transport: Transport;
}

/** What the client connects to instead of the upstream's transport itself. */
export type Decorate = (transport: Transport) => Transport;

/**
 * Connects `makeClient()` to the server over the transport the config asks for. For `auto` HTTP
 * servers Streamable HTTP is tried first and legacy SSE second, as the MCP spec recommends.
 */
export async function connectClient(
  config: ServerConfig,
  makeClient: () => Client,
  log: Logger,
  timeoutMs: number,
  decorate: Decorate = (transport) => transport,
): Promise<ConnectedClient> {
  const attempt = (client: Client, transport: Transport) => connectThrough(client, transport, decorate, timeoutMs);
  if (config.kind === 'stdio') {
    const transport = new ProcessTransport({
      command: config.command,
      args: config.args,
      env: { ...stringEnv(process.env), ...config.env },
      cwd: config.cwd,
      log,
      cutLongLiterals: true,
    });
    return attempt(makeClient(), transport);
  }
  if (config.kind === 'abp') return attempt(makeClient(), await abpTransport(config, log));
  if (config.transport === 'sse') return attempt(makeClient(), sse(config));
  try {
    return await attempt(makeClient(), streamable(config));
  } catch (error) {
    if (config.transport !== 'auto') throw error;
    log.info({ err: String(error) }, 'Streamable HTTP failed; trying legacy SSE');
    try {
      return await attempt(makeClient(), sse(config));
    } catch (sseError) {
      throw new Error(
        `could not connect to ${config.url}: Streamable HTTP failed (${message(error)}) and SSE failed (${message(sseError)})`,
        { cause: sseError },
      );
    }
  }
}

async function connectThrough(
  client: Client,
  transport: Transport,
  decorate: Decorate,
  timeoutMs: number,
): Promise<ConnectedClient> {
  try {
    await client.connect(decorate(transport), { timeout: timeoutMs });
    return { client, transport };
  } catch (error) {
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The built-in browser backend, a fresh in-process MCP server per connection (so a restart is a new
 * one), joined by an in-memory pair. Closing the client's side waits until every browser is closed,
 * so stopping the gateway leaves no browser process behind.
 */
async function abpTransport(config: AbpServerConfig, log: Logger): Promise<Transport> {
  // Loaded on demand: puppeteer-core takes a quarter of a second to import, which no other server should pay.
  const { createAbpBackend } = await import('./abp/backend.js');
  const backend = createAbpBackend(config.abp, log);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await backend.server.connect(serverSide);
  return new DecoratedTransport(clientSide, { afterClose: () => backend.close() });
}

function streamable(config: HttpServerConfig): Transport {
  return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
}

function sse(config: HttpServerConfig): Transport {
  return new SSEClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
