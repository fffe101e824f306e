// The proxy under a probe: the built dist/cli.js as its own process (so a frozen event loop is seen from outside
// and killed), over a config with the scripted upstream ("hostile") beside a well-behaved one ("calm").
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCli, type CliProcess } from '../../helpers/cli.js';
import { FIXTURES, NODE } from '../../helpers/fixtures.js';
import type { Era, ProbeClient } from './client.js';
import { HttpClient } from './http-client.js';
import type { ScriptedUpstream } from './scripted-upstream.js';
import { StdioClient } from './stdio-client.js';

export interface HostileProxyOptions {
  /** Served as the server "hostile" (its tools are `hostile__<name>`). */
  upstream?: ScriptedUpstream;
  /** Over HTTP (`--http 127.0.0.1:0`) rather than stdio. */
  http?: boolean;
  /** More of the config, as YAML lines (pipeline:, artifacts:, http:). */
  yaml?: string[];
  /** More command-line options (before --config). */
  args?: string[];
}

export interface HostileProxy {
  cli: CliProcess;
  /** http://127.0.0.1:<port>/mcp, with `http`. */
  endpoint?: string;
  /**
   * A client of `era`: over stdio the process's one client (its first message pins its era), over HTTP a new
   * session or 2026-07-28 client each time.
   */
  client(era: Era): Promise<ProbeClient>;
  /** Stops the process (SIGKILL when it does not stop on SIGTERM: a frozen one) and removes its files. */
  stop(): Promise<void>;
}

/** Names of the servers in every probe's config. */
export const HOSTILE = 'hostile';
export const CALM = 'calm';

export async function startHostileProxy(options: HostileProxyOptions = {}): Promise<HostileProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-hostile-'));
  const config = join(dir, 'config.yaml');
  const servers = [
    `  ${CALM}: {command: ${JSON.stringify(NODE)}, args: [${JSON.stringify(FIXTURES.basic)}, --name, ${CALM}]}`,
  ];
  if (options.upstream) {
    const args = options.upstream.args.map((arg) => JSON.stringify(arg)).join(', ');
    servers.unshift(`  ${HOSTILE}: {command: ${JSON.stringify(NODE)}, args: [${args}]}`);
  }
  writeFileSync(config, ['logLevel: warn', 'servers:', ...servers, ...(options.yaml ?? []), ''].join('\n'));
  const args = [...(options.args ?? []), '--config', config];
  const cli = startCli(options.http ? ['--http', '127.0.0.1:0', ...args] : args);
  const stop = async () => {
    await cli.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (!options.http) {
      let opened: Promise<StdioClient> | undefined;
      return {
        cli,
        client: (era) => {
          if (opened) throw new Error('a proxy on stdio has one client');
          opened = StdioClient.open(era, cli.child.stdin!, cli.child.stdout!);
          return opened;
        },
        stop,
      };
    }
    const [, endpoint] = await cli.waitForStderr(
      /^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m,
      30_000,
    );
    return { cli, endpoint, client: (era) => HttpClient.open(era, endpoint!), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
