// An in-process gateway served over HTTP on 127.0.0.1 (no tokens), for tests that POST to it as a client would.
import { rm } from 'node:fs/promises';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpHandle } from '../../src/http/server.js';
import { silentLogger } from '../../src/logger.js';
import { testConfig } from './proxy.js';

export interface HttpGateway {
  gateway: Gateway;
  http: HttpHandle;
  /** http://127.0.0.1:<port>/mcp */
  endpoint: string;
  /** Stops the HTTP server and the gateway, and removes the artifact directory. */
  close(): Promise<void>;
}

/** Starts a gateway over `servers`; `prepare` sees it before it starts (to listen to its events). */
export async function startHttpGateway(
  servers: Parameters<typeof testConfig>[0],
  prepare: (gateway: Gateway) => void = () => undefined,
): Promise<HttpGateway> {
  const config = testConfig(servers);
  const gateway = new Gateway(config, silentLogger);
  prepare(gateway);
  await gateway.start();
  const http = await serveHttp(gateway, { host: '127.0.0.1', port: 0 }, silentLogger);
  return {
    gateway,
    http,
    endpoint: `http://127.0.0.1:${http.port}/mcp`,
    close: async () => {
      await http.close();
      await gateway.stop();
      if (config.artifacts.dir) await rm(config.artifacts.dir, { recursive: true, force: true });
    },
  };
}
