// Every client gets its own upstream session, its own requests and nothing of anyone else's (issue #12).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { VersionedClient } from '../helpers/versioned-client.js';
import { CLI, cliEnv, leftovers, REPO_ROOT, removeArtifactDir, startCli, stopAllCli } from '../helpers/cli.js';
import { textsOf } from '../helpers/sidecar.js';
import {
  EVERYTHING_ENTRY,
  FIXTURES,
  NODE,
  pidAlive,
  startEverythingHttp,
  waitFor,
  type EverythingHttp,
} from '../helpers/fixtures.js';
import { FILESYSTEM_ENTRY, filesystemRoot } from '../helpers/third-party.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-isolation-'));
const ALL: ClientCapabilities = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } };

afterAll(async () => {
  await stopAllCli();
  expect(leftovers()).toEqual([]);
  removeArtifactDir();
  rmSync(dir, { recursive: true, force: true });
});

/** A client that answers every question with its own name, and keeps what it is told. */
interface NamedClient {
  name: string;
  client: Client;
  logs: string[];
  toolListChanges: number;
  /** Elicitations this client holds unanswered until `release()` (when `hold` is set). */
  held: number;
  release(): void;
  close(): Promise<void>;
}

function namedClient(name: string, options: { hold?: boolean; protocolVersion?: string } = {}): NamedClient {
  const client = new VersionedClient({
    clientInfo: { name: `client-${name}`, version: '1.0.0' },
    capabilities: ALL,
    ...(options.protocolVersion ? { protocolVersion: options.protocolVersion } : {}),
  });
  let releaseHeld!: () => void;
  const released = new Promise<void>((resolve) => (releaseHeld = resolve));
  const named: NamedClient = {
    name,
    client,
    logs: [],
    toolListChanges: 0,
    held: 0,
    release: releaseHeld,
    close: () => client.close(),
  };
  client.setRequestHandler(ElicitRequestSchema, async () => {
    if (options.hold) {
      named.held++;
      await released;
    }
    return { action: 'accept', content: { answer: `answer of ${name}`, name: `answer of ${name}` } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    model: `model of ${name}`,
    role: 'assistant',
    content: { type: 'text', text: `sample of ${name}` },
  }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: `file:///roots/${name}`, name: `root of ${name}` }],
  }));
  client.setNotificationHandler(
    LoggingMessageNotificationSchema,
    async (n) => void named.logs.push(String(n.params.data)),
  );
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void named.toolListChanges++);
  return named;
}

async function overHttp(base: string, name: string, options: { hold?: boolean } = {}): Promise<NamedClient> {
  const named = namedClient(name, options);
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`));
  await named.client.connect(transport);
  // A client that is done ends its session (DELETE), as the spec asks.
  named.close = async () => {
    await transport.terminateSession().catch(() => undefined);
    await named.client.close();
  };
  return named;
}

const call = async (c: NamedClient, name: string, args: Record<string, unknown> = {}) =>
  textsOf(await c.client.callTool({ name, arguments: args }));

/** The tool names a client is shown. */
const toolNames = async (c: NamedClient) => (await c.client.listTools()).tools.map((t) => t.name);

async function serve(yaml: string): Promise<string> {
  const file = join(dir, `config-${Date.now()}.yaml`);
  writeFileSync(file, yaml);
  const cli = startCli(['--http', '127.0.0.1:0', '--config', file]);
  const [, base] = await cli.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp$/m, 30_000);
  return base!;
}

describe('several clients through --http', () => {
  let everything: EverythingHttp;
  let base: string;
  beforeAll(async () => {
    everything = await startEverythingHttp();
    const basic = (name: string, isolation: string) =>
      `  ${name}: {command: ${NODE}, args: [${FIXTURES.basic}, --name, ${name}], isolation: ${isolation}}\n`;
    base = await serve(
      'servers:\n' +
        basic('own', 'session') +
        basic('shared', 'shared') +
        `  dyn: {command: ${NODE}, args: [${FIXTURES.dynamic}], isolation: session}\n` +
        // No isolation set: it asks for roots as soon as it starts, so every client gets a connection of its own.
        `  auto: {command: ${NODE}, args: [${FIXTURES.basic}, --name, auto, --roots-on-init]}\n` +
        `  web: {url: "${everything.url}"}\n` +
        'pipeline: {mode: passthrough}\n',
    );
  }, 60_000);
  afterAll(async () => {
    await stopAllCli();
    await everything.close();
  });

  test('three clients each answering differently: every answer reaches the upstream call it belongs to', async () => {
    const clients = await Promise.all(['A', 'B', 'C'].map((name) => overHttp(base, name)));
    try {
      // server-everything offers its elicitation and sampling tools once it knows the client can answer them.
      for (const c of clients)
        await waitFor(async () => (await toolNames(c)).includes('web__trigger-elicitation-request'), 15_000);
      const answers = await Promise.all(
        clients.map(async (c) => ({
          name: c.name,
          elicit: await call(c, 'own__elicit', { message: `question for ${c.name}` }),
          sample: await call(c, 'own__sample', { prompt: 'hi' }),
          roots: await call(c, 'own__roots'),
          webElicit: await call(c, 'web__trigger-elicitation-request'),
          webSample: await call(c, 'web__trigger-sampling-request', { prompt: 'hi' }),
          webRoots: await call(c, 'web__get-roots-list'),
        })),
      );
      for (const a of answers) {
        expect(JSON.parse(a.elicit)).toEqual({
          action: 'accept',
          content: expect.objectContaining({ answer: `answer of ${a.name}` }),
        });
        expect(a.sample).toBe(`sample of ${a.name}`);
        expect(JSON.parse(a.roots)).toEqual({ roots: [{ uri: `file:///roots/${a.name}`, name: `root of ${a.name}` }] });
        expect(a.webElicit).toContain(`answer of ${a.name}`);
        expect(a.webSample).toContain(`sample of ${a.name}`);
        expect(a.webRoots).toContain(`file:///roots/${a.name}`);
        for (const other of answers.filter((o) => o.name !== a.name)) {
          expect(JSON.stringify(a)).not.toContain(`of ${other.name}`);
          expect(JSON.stringify(a)).not.toContain(`roots/${other.name}`);
        }
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  }, 120_000);

  test('a logging message of a call reaches only the client that made the call', async () => {
    const clients = await Promise.all(['A', 'B', 'C'].map((name) => overHttp(base, name)));
    try {
      // Own connections: all at once. The shared one: one client at a time, so it is serving exactly one client.
      await Promise.all(clients.map((c) => call(c, 'own__log', { message: `own log of ${c.name}` })));
      for (const c of clients) await call(c, 'shared__log', { message: `shared log of ${c.name}` });
      // server-everything, on each client's own connection to it, logs "Roots updated" once it has the client's
      // roots, whenever that is: that message is the client's too, and not one of the calls' messages looked at here.
      const callLogs = (c: NamedClient) => c.logs.filter((line) => line.includes(' log of '));
      for (const c of clients) await waitFor(() => callLogs(c).length >= 2, 10_000, 20, `the logs of ${c.name}`);
      for (const c of clients) expect(callLogs(c).sort()).toEqual([`own log of ${c.name}`, `shared log of ${c.name}`]);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  }, 60_000);

  test("list_changed from a client's own upstream reaches only that client, and its tools only its list", async () => {
    const [a, b] = await Promise.all(['A', 'B'].map((name) => overHttp(base, name)));
    try {
      expect(await call(a, 'dyn__add-tool', { name: 'only-a' })).toBe('added tool only-a');
      await waitFor(() => a.toolListChanges > 0, 10_000, 20, "A's tools/list_changed");
      expect(await toolNames(a)).toContain('dyn__only-a');
      expect(await toolNames(b)).not.toContain('dyn__only-a');
      await expect(b.client.callTool({ name: 'dyn__only-a' })).rejects.toThrow(/not found/);
      expect(await call(b, 'dyn__add-tool', { name: 'only-b' })).toBe('added tool only-b');
      await waitFor(() => b.toolListChanges > 0, 10_000, 20, "B's tools/list_changed");
      expect(b.toolListChanges).toBe(1);
      expect(a.toolListChanges).toBe(1);
      expect(await toolNames(b)).not.toContain('dyn__only-a');
      // A client's own upstream ends with its session.
      const pid = Number(await call(a, 'dyn__pid'));
      await a.close();
      await waitFor(() => !pidAlive(pid), 10_000, 50, "A's own upstream to exit");
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  test('a server that asks for roots at startup, with no isolation set, gets every client its own connection', async () => {
    const clients = await Promise.all(['A', 'B'].map((name) => overHttp(base, name)));
    try {
      // Answered by each client: the shared connection serves nobody once it has asked for roots at startup.
      const pids = await Promise.all(clients.map((c) => call(c, 'auto__pid')));
      expect(new Set(pids).size).toBe(2);
      for (const c of clients) {
        expect(JSON.parse(await call(c, 'auto__roots'))).toEqual({
          roots: [{ uri: `file:///roots/${c.name}`, name: `root of ${c.name}` }],
        });
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  }, 60_000);

  test('a shared upstream asks the one client whose call it serves, and refuses clearly when two are in flight, losing nothing else', async () => {
    const a = await overHttp(base, 'A', { hold: true });
    const b = await overHttp(base, 'B');
    try {
      // One client's call in flight: its question reaches it.
      const first = call(a, 'shared__elicit', { message: 'for A' });
      await waitFor(() => a.held === 1, 10_000, 20, "A's elicitation");
      // A second client's call while A's is in flight: nobody can tell whose question it is.
      await expect(b.client.callTool({ name: 'shared__elicit', arguments: { message: 'for B' } })).rejects.toThrow(
        /cannot tell which client elicitation\/create is for: upstream "shared" serves its clients on one shared connection and calls of 2 clients are in flight on it.*isolation: session/,
      );
      expect(await call(b, 'shared__echo', { message: 'B still served' })).toBe('B still served');
      a.release();
      expect(JSON.parse(await first)).toEqual({
        action: 'accept',
        content: expect.objectContaining({ answer: 'answer of A' }),
      });
    } finally {
      a.release();
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);
});

describe('a session its client left without DELETE', () => {
  afterAll(() => stopAllCli());

  test('ends after http.sessionIdleMs of silence, and its own upstream process with it; one with a call open stays', async () => {
    const base = await serve(
      'http: {sessionIdleMs: 300}\n' +
        'servers:\n' +
        `  own: {command: ${NODE}, args: [${FIXTURES.basic}, --name, own], isolation: session}\n` +
        'pipeline: {mode: passthrough}\n',
    );
    const [gone, busy] = await Promise.all([overHttp(base, 'A'), overHttp(base, 'B', { hold: true })]);
    try {
      const pid = Number(await call(gone, 'pid'));
      const busyPid = Number(await call(busy, 'pid'));
      const goneId = (gone.client.transport as StreamableHTTPClientTransport).sessionId!;
      // B's elicitation stays unanswered while A goes away without DELETE: an open call keeps a session.
      const held = call(busy, 'elicit', { message: 'wait' });
      await waitFor(() => busy.held === 1, 10_000, 20, "B's elicitation to arrive");
      await gone.client.close();
      await waitFor(() => !pidAlive(pid), 15_000, 50, "the left session's upstream to exit");
      expect(pidAlive(busyPid)).toBe(true);
      const after = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': goneId,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(after.status).toBe(404);
      busy.release();
      expect(JSON.parse(await held)).toEqual({
        action: 'accept',
        content: expect.objectContaining({ answer: 'answer of B' }),
      });
      expect(Number(await call(busy, 'pid'))).toBe(busyPid);
    } finally {
      await busy.close();
    }
  }, 60_000);
});

describe("a 2026-07-28 client's endpoint", () => {
  afterAll(() => stopAllCli());

  test('is let go after http.sessionIdleMs unused, and made again by its next request', async () => {
    const file = join(dir, 'config-modern-idle.yaml');
    writeFileSync(
      file,
      'http: {sessionIdleMs: 300}\n' +
        `servers:\n  own: {command: ${NODE}, args: [${FIXTURES.basic}, --name, own]}\n` +
        'pipeline: {mode: passthrough}\n',
    );
    const cli = startCli(['--http', '127.0.0.1:0', '--config', file, '--log-level', 'debug']);
    const [, url] = await cli.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m, 30_000);
    const client = new ModernClient(
      { name: 'modern-idle', version: '1.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new ModernHttpTransport(new URL(url!)));
    const echo = async (text: string) =>
      ((await client.callTool({ name: 'echo', arguments: { message: text } })).content as Array<{ text?: string }>)[0]
        ?.text;
    try {
      expect(await echo('before')).toContain('before');
      await cli.waitForStderr(/modern endpoint let go/, 10_000);
      expect(await echo('after')).toContain('after');
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('wrapping one server on stdio', () => {
  async function wrap(args: string[], named: NamedClient): Promise<void> {
    const transport = new StdioClientTransport({
      command: NODE,
      args: [CLI, '--', ...args],
      env: cliEnv(),
      cwd: REPO_ROOT,
      stderr: 'pipe',
    });
    await named.client.connect(transport);
  }

  test("the upstream sees the client's own clientInfo, capabilities and protocol version", async () => {
    const named = namedClient('A', { protocolVersion: '2025-06-18' });
    try {
      await wrap([NODE, FIXTURES.clientView], named);
      expect(JSON.parse(await call(named, 'client'))).toEqual({
        clientInfo: { name: 'client-A', version: '1.0.0' },
        capabilities: ALL,
        protocolVersion: '2025-06-18',
      });
      expect((named.client as VersionedClient).negotiatedProtocolVersion).toBe('2025-06-18');
      expect(named.client.getServerVersion()?.name).toBe('client-view');
    } finally {
      await named.close();
    }
  }, 60_000);

  test("server-filesystem serves the real client's roots from the start, not the command line's directory", async () => {
    const commandLineRoot = filesystemRoot();
    const clientRoot = filesystemRoot();
    const named = namedClient('A');
    named.client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: [{ uri: `file://${clientRoot}`, name: 'client root' }],
    }));
    try {
      await wrap([NODE, FILESYSTEM_ENTRY, commandLineRoot], named);
      // The server applies the roots it asked for when it was initialized; its answer shows them once it has.
      const allowed = await waitFor(
        async () => {
          const text = await call(named, 'list_allowed_directories');
          return text.includes(clientRoot) ? text : undefined;
        },
        15_000,
        50,
        "server-filesystem to take the client's roots",
      );
      expect(allowed).not.toContain(commandLineRoot);
    } finally {
      await named.close();
      rmSync(commandLineRoot, { recursive: true, force: true });
      rmSync(clientRoot, { recursive: true, force: true });
    }
  }, 60_000);

  test('server-everything asks the client for its roots at startup and gets them', async () => {
    const named = namedClient('A');
    try {
      await wrap([NODE, EVERYTHING_ENTRY, 'stdio'], named);
      expect(await call(named, 'get-roots-list')).toContain('file:///roots/A');
    } finally {
      await named.close();
    }
  }, 60_000);
});
