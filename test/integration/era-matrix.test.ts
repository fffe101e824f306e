// Both protocol eras on both sides of the built proxy (dist/cli.js): a legacy client (SDK v1 Client,
// 2025-11-25) and a modern one (SDK v2 Client pinned to 2026-07-28), each in front of a legacy
// server (test/fixtures/legacy-era-server.mjs, SDK v1) and a modern one (test/fixtures/modern-server.mjs,
// SDK v2), through the proxy in wrapper mode over stdio and over --http. Each of the eight
// combinations lists the tools as the server does, carries request and result _meta both ways,
// offloads an oversized image, and bridges elicitation across eras (a legacy server's
// elicitation/create becomes an input_required result toward a modern client; a modern server's
// input_required becomes elicitation/create toward a legacy client). Tasks: the 2025-11-25 task flow
// (CreateTaskResult, tasks/get, tasks/result) of a legacy client in front of the legacy server, its
// result offloaded; the SDK's v2 server packages (2.4.0) have no io.modelcontextprotocol/tasks
// extension, so there is no modern task to run.
//
// What the fixtures answer, beyond the tool names (both fixtures alike): meta_echo answers the request
// _meta it saw as JSON text (or as that text's `_meta`), and at least the traceparent in its result
// _meta; ask elicits a form with string fields and puts the answer in its text; image answers a PNG
// over the proxy's 1568 px edge.
// cspell:ignore tracestate rojo
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  ResultSchema as ResultSchemaV1,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ResultSchema } from '@modelcontextprotocol/core';
import { CLI, cliEnv, leftovers, REPO_ROOT, removeArtifactDir, startCli, stopAllCli } from '../helpers/cli.js';
import { NODE } from '../helpers/fixtures.js';
import { artifactMeta, onlyLink, sha256 } from '../helpers/pipeline.js';
import { textOf } from '../helpers/results.js';

type Era = 'legacy' | 'modern';
type Wire = 'stdio' | 'http';

const FIXTURE: Record<Era, string> = {
  legacy: join(REPO_ROOT, 'test', 'fixtures', 'legacy-era-server.mjs'),
  modern: join(REPO_ROOT, 'test', 'fixtures', 'modern-server.mjs'),
};
const MODERN_REVISION = '2026-07-28';
const PROXY_TOOLS = new Set(['artifact_list', 'artifact_read']);

/** The request _meta of the echo: W3C trace context, baggage, and a reserved-prefix key that is no envelope key. */
const SENT_META = {
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE',
  baggage: 'userId=alice,serverNode=DF%2028',
  'io.modelcontextprotocol/era-matrix-probe': 'not an envelope key',
};
/** What the clients' elicitation handlers put in every string field they are asked for. */
const ANSWER = 'era-matrix-answer';

/** One client of either SDK behind one interface: raw requests, so that nothing is validated away. */
interface MatrixClient {
  listTools(): Promise<Tool[]>;
  callTool(params: {
    name: string;
    arguments?: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  }): Promise<CallToolResult>;
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** The revision negotiated (the modern client's; the v1 client does not expose it). */
  protocolVersion(): string | undefined;
  close(): Promise<void>;
}

/** Every string property of a requested schema, filled with ANSWER. */
function fill(schema: { properties?: Record<string, { type?: string }> } | undefined): Record<string, string> {
  const content: Record<string, string> = {};
  for (const [key, property] of Object.entries(schema?.properties ?? {}))
    if (property.type === 'string') content[key] = ANSWER;
  return content;
}

/** Where a client connects: a command it spawns (stdio) or an endpoint (HTTP). */
type Target = { command: string; args: string[] } | { url: string };

async function connectLegacy(target: Target): Promise<MatrixClient> {
  const client = new ClientV1({ name: 'era-matrix-legacy', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => ({
    action: 'accept',
    content: fill((request.params as { requestedSchema?: never }).requestedSchema),
  }));
  const transport =
    'url' in target
      ? new HttpClientTransportV1(new URL(target.url))
      : new StdioClientTransportV1({ ...target, env: cliEnv(), cwd: REPO_ROOT, stderr: 'ignore' });
  await client.connect(transport);
  const request = async (method: string, params: Record<string, unknown>) =>
    (await client.request({ method, params } as never, ResultSchemaV1, { timeout: 60_000 })) as Record<string, unknown>;
  return {
    listTools: async () => {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await request('tools/list', cursor === undefined ? {} : { cursor });
        tools.push(...(page.tools as Tool[]));
        cursor = page.nextCursor as string | undefined;
      } while (cursor !== undefined);
      return tools;
    },
    callTool: async (params) => (await request('tools/call', params)) as CallToolResult,
    request,
    protocolVersion: () => undefined,
    close: () => client.close(),
  };
}

async function connectModern(target: Target): Promise<MatrixClient> {
  const client = new Client(
    { name: 'era-matrix-modern', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  // The SDK answers an input_required result's embedded elicitation with this handler and retries.
  client.setRequestHandler('elicitation/create', async (request) => ({
    action: 'accept',
    content: fill((request.params as { requestedSchema?: never }).requestedSchema),
  }));
  const transport =
    'url' in target
      ? new StreamableHTTPClientTransport(new URL(target.url))
      : new StdioClientTransport({ ...target, env: cliEnv(), cwd: REPO_ROOT, stderr: 'ignore' });
  await client.connect(transport);
  return {
    listTools: async () => (await client.listTools()).tools as Tool[],
    callTool: async (params) => (await client.callTool(params, { timeout: 60_000 })) as unknown as CallToolResult,
    request: async (method, params) =>
      (await client.request({ method, params }, ResultSchema, { timeout: 60_000 })) as Record<string, unknown>,
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    close: () => client.close(),
  };
}

const connect = (era: Era, target: Target) => (era === 'legacy' ? connectLegacy(target) : connectModern(target));

const work = mkdtempSync(join(tmpdir(), 'mcp-offload-era-matrix-'));

/** Each server straight to a client of its own era: what the proxy's answers are held against. */
const direct: Partial<Record<Era, MatrixClient>> = {};

beforeAll(async () => {
  direct.legacy = await connectLegacy({ command: NODE, args: [FIXTURE.legacy] });
  direct.modern = await connectModern({ command: NODE, args: [FIXTURE.modern] });
}, 60_000);

afterAll(async () => {
  await direct.legacy?.close();
  await direct.modern?.close();
  await stopAllCli();
  expect(leftovers()).toEqual([]);
  removeArtifactDir();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

/** A tool as the 2026-07-28 wire can carry it. */
function withoutExecution(tool: Tool): Tool {
  const { execution: _execution, ...rest } = tool;
  return rest as Tool;
}

/** The request _meta meta_echo reports: its JSON text, or that text's `_meta` when it reports more. */
function requestMetaSeen(result: CallToolResult): Record<string, unknown> {
  const reported = JSON.parse(textOf(result)) as Record<string, unknown>;
  const meta = reported._meta;
  return typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : reported;
}

/** A result _meta less the modern era's per-result server identity. */
function withoutServerInfo(meta: Record<string, unknown> | undefined): Record<string, unknown> {
  const { 'io.modelcontextprotocol/serverInfo': _info, ...rest } = meta ?? {};
  return rest;
}

/** The first image block of a result, decoded. */
function imageBytes(result: CallToolResult): Buffer {
  const image = result.content.find((b) => b.type === 'image') as { data: string } | undefined;
  if (!image) throw new Error(`no image block in ${JSON.stringify(result).slice(0, 500)}`);
  return Buffer.from(image.data, 'base64');
}

/** Width and height of a PNG, from its IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/**
 * An image result the proxy stored: one artifact link, and a file in the store holds exactly `original`. Over stdio
 * the result names that file; an HTTP client gets no path of the gateway's (a download link instead).
 */
function expectOffloaded(result: CallToolResult, original: Buffer, wire: Wire, dir: string): void {
  expect(onlyLink(result).uri).toMatch(/^artifact:\/\//);
  const [stored] = artifactMeta(result);
  expect(stored).toBeDefined();
  expect(stored!.sha256).toBe(sha256(original));
  if (wire === 'http') expect(stored!.path).toBeUndefined();
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
  const file = wire === 'stdio' ? stored!.path : files.find((f) => sha256(readFileSync(f)) === sha256(original));
  expect(file).toBeDefined();
  expect(sha256(readFileSync(file!))).toBe(sha256(original));
}

const WIRES: Wire[] = ['stdio', 'http'];
const ERAS: Era[] = ['legacy', 'modern'];

describe.each(WIRES)('through the proxy over %s', (wire) => {
  describe.each(ERAS)('a %s server', (serverEra) => {
    describe.each(ERAS)('a %s client', (clientEra) => {
      let client: MatrixClient;
      let server: MatrixClient;
      let artifacts: string;

      beforeAll(async () => {
        server = direct[serverEra]!;
        artifacts = mkdtempSync(join(work, `${wire}-${serverEra}-${clientEra}-`));
        const wrap = ['--artifact-dir', artifacts, '--', NODE, FIXTURE[serverEra]];
        if (wire === 'stdio') {
          client = await connect(clientEra, { command: NODE, args: [CLI, ...wrap] });
        } else {
          const cli = startCli(['--http', '127.0.0.1:0', ...wrap]);
          const [, url] = await cli.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m);
          client = await connect(clientEra, { url: url! });
        }
      }, 60_000);

      afterAll(async () => {
        await client?.close();
      });

      if (clientEra === 'modern') {
        test(`speaks ${MODERN_REVISION} with the client`, () => {
          expect(client.protocolVersion()).toBe(MODERN_REVISION);
        });
      }

      test('lists the tools as the server does, beside its own', async () => {
        const listed = (await client.listTools()).filter((t) => !PROXY_TOOLS.has(t.name));
        // A 2026-07-28 tool has no `execution`: the 2025-11-25 task vocabulary it carries (taskSupport)
        // was deleted from the revision when tasks became an extension, so a modern client gets the
        // tool without it, as the SDK's own codec writes it.
        const expected = (await server.listTools()).map((tool) =>
          clientEra === 'modern' ? withoutExecution(tool) : tool,
        );
        const byName = (tools: Tool[]) => [...tools].sort((a, b) => a.name.localeCompare(b.name));
        expect(byName(listed)).toEqual(byName(expected));
      });

      test('carries the request _meta to the tool and the result _meta back', async () => {
        const call = { name: 'meta_echo', arguments: {}, _meta: SENT_META };
        const result = await client.callTool(call);
        const reference = await server.callTool(call);
        // The tool saw what the client sent, no more: the envelope is the proxy's business with each upstream, and a
        // call nobody asked progress of carries no progress token (a bridged one neither: eras.ts).
        const seen = requestMetaSeen(result);
        expect(seen).toEqual(SENT_META);
        expect(seen).toEqual(requestMetaSeen(reference));
        // The result _meta the tool set reaches the client; whom a modern result names as its server
        // (io.modelcontextprotocol/serverInfo, 2026-07-28 only) is the proxy's to say.
        expect(result._meta).toMatchObject({ traceparent: SENT_META.traceparent });
        expect(withoutServerInfo(result._meta)).toEqual(withoutServerInfo(reference._meta));
      });

      test('offloads an oversized image: an artifact link, the file holds the same bytes', async () => {
        const original = imageBytes(await server.callTool({ name: 'image', arguments: {} }));
        expect(Math.max(pngSize(original).width, pngSize(original).height)).toBeGreaterThan(1568);
        expectOffloaded(await client.callTool({ name: 'image', arguments: {} }), original, wire, artifacts);
      });

      test(`bridges elicitation: the ${serverEra} server's question answered by the ${clientEra} client's handler`, async () => {
        const result = await client.callTool({ name: 'ask', arguments: { question: 'Who runs the matrix?' } });
        expect(result.isError).toBeFalsy();
        expect(textOf(result)).toContain(ANSWER);
      });

      if (serverEra === 'legacy' && clientEra === 'legacy') {
        test('a 2025-11-25 task: created at once, its result fetched with tasks/result and offloaded', async () => {
          const original = imageBytes(await server.callTool({ name: 'image', arguments: {} }));
          const created = await client.request('tools/call', {
            name: 'slow_task',
            arguments: {},
            task: { ttl: 60_000 },
          });
          const task = created.task as { taskId: string; status: string };
          expect(task.taskId).toEqual(expect.any(String));
          // tasks/result waits for the task to end.
          const final = (await client.request('tasks/result', { taskId: task.taskId })) as unknown as CallToolResult;
          expectOffloaded(final, original, wire, artifacts);
          expect(await client.request('tasks/get', { taskId: task.taskId })).toMatchObject({
            taskId: task.taskId,
            status: 'completed',
          });
        });
      }

      if (serverEra === 'legacy' && clientEra === 'modern') {
        test('a task tool called without a task runs to its result, offloaded', async () => {
          const original = imageBytes(await server.callTool({ name: 'image', arguments: {} }));
          expectOffloaded(await client.callTool({ name: 'slow_task', arguments: {} }), original, wire, artifacts);
        });
      }
    });
  });
});
