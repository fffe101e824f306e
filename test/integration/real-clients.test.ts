// Real clients nobody here wrote, before the proxy as their users put them there: the MCP Inspector's CLI (over
// stdio, where it starts the proxy, over Streamable HTTP and the legacy SSE transport) in both protocol eras and as a
// host of MCP Apps, and mcp-remote, the stdio-to-HTTP bridge that clients without HTTP of their own put before a
// remote server. test/clients/ pins them; .ci/run installs
// them, and this file does when they are missing (as conformance.test.ts does the conformance suite). Each client
// runs as its users run it: the Inspector starts `node dist/cli.js ...` itself, and mcp-remote is an SDK client's
// stdio server that posts to the proxy's --http endpoint with a bearer token.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, cliEnv, installPinned, leftovers, REPO_ROOT, startCli, stopAllCli } from '../helpers/cli.js';
import { EVERYTHING_ENTRY, FIXTURES, NODE, waitFor } from '../helpers/fixtures.js';

const CLIENTS_DIR = join(REPO_ROOT, 'test', 'clients');
/** The Inspector's launcher (its `mcp-inspector` bin), which `--cli` turns into the CLI client. */
const INSPECTOR_CLI = join(
  CLIENTS_DIR,
  'node_modules',
  '@modelcontextprotocol',
  'inspector',
  'clients/launcher/build/index.js',
);
const MCP_REMOTE = join(CLIENTS_DIR, 'node_modules', 'mcp-remote', 'dist', 'proxy.js');
const TOKEN = 'real-clients-token-0123456789abcdef';
const IMAGE_BYTES = 2 * 1024 * 1024;
/** The Inspector's arguments for a call of the fixture's `big-image`, IMAGE_BYTES of PNG. */
const BIG_IMAGE = ['--method', 'tools/call', '--tool-name', 'big-image', '--tool-arg', 'mb=2'];

const tmp = mkdtempSync(join(tmpdir(), 'mcp-offload-real-clients-'));
const store = join(tmp, 'artifacts');
// The Inspector keeps a catalog and its OAuth state under the home directory: a fresh one, not the user's.
const env = cliEnv({ HOME: join(tmp, 'home') });

beforeAll(() => installPinned(CLIENTS_DIR, [INSPECTOR_CLI, MCP_REMOTE]), 320_000);

afterEach(() => stopAllCli());
afterAll(async () => {
  await waitFor(() => leftovers().length === 0, 10_000, 50, 'every proxy the clients started to exit');
  rmSync(tmp, { recursive: true, force: true });
});

/** One run of the Inspector's CLI (quiet) that must succeed: what it printed on stdout. */
async function inspectorText(args: string[]): Promise<string> {
  const run = promisify(execFile)(NODE, [INSPECTOR_CLI, '--cli', ...args, '-q'], {
    cwd: REPO_ROOT,
    env,
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  try {
    return (await run).stdout;
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    throw new Error(`the Inspector exited ${failed.code}: ${failed.stderr ?? ''}${failed.stdout ?? ''}`, {
      cause: error,
    });
  }
}

/** The same with `--format json`: the one JSON object it printed. */
async function inspector(args: string[]): Promise<{ out: Record<string, unknown> }> {
  return { out: JSON.parse(await inspectorText([...args, '--format', 'json'])) as Record<string, unknown> };
}

interface Block {
  type: string;
  text?: string;
  data?: string;
  uri?: string;
  mimeType?: string;
  size?: number;
}

/** The result an Inspector run of tools/call printed. */
function resultOf(run: { out: Record<string, unknown> }): { content: Block[]; _meta?: Record<string, unknown> } {
  return run.out.result as { content: Block[]; _meta?: Record<string, unknown> };
}

/** What every client must see of a 2 MiB image the proxy stored: a short result, the file's link, nothing lost. */
function expectStoredImage(result: { content: Block[] }): string {
  const link = result.content.find((block) => block.type === 'resource_link');
  expect(link).toMatchObject({ mimeType: 'image/png', size: IMAGE_BYTES });
  expect(link!.uri).toMatch(/^artifact:\/\/big-result\/big-image_[0-9a-f]{12}\.png$/);
  expect(result.content[0]!.text).toContain(`Resource: ${link!.uri}`);
  // A preview a vision model can see, not the 2 MiB image (whose base64 is 2.8 million characters).
  const preview = result.content.find((block) => block.type === 'image');
  expect(preview?.data?.length).toBeLessThan(10_000);
  expect(JSON.stringify(result).length).toBeLessThan(20_000);
  return link!.uri!;
}

describe('the MCP Inspector CLI starts the proxy over stdio', () => {
  const proxy = (...server: string[]) => [NODE, CLI, '--artifact-dir', store, ...server];

  test('a call reaches server-everything and comes back as it does direct, with or without "--"', async () => {
    const call = ['--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'message=hello, "world"'];
    const direct = await inspector([NODE, EVERYTHING_ENTRY, 'stdio', ...call]);
    // The README's form: no "--" (a client may strip it); and with it.
    const bare = await inspector([...proxy(NODE, EVERYTHING_ENTRY, 'stdio'), ...call]);
    const separated = await inspector([...proxy('--', NODE, EVERYTHING_ENTRY, 'stdio'), ...call]);
    expect(direct.out).toEqual({ result: { content: [{ type: 'text', text: 'Echo: hello, "world"' }] } });
    expect(bare.out).toEqual(direct.out);
    expect(separated.out).toEqual(direct.out);
  });

  test.each(['legacy', 'modern'])(
    'in the %s era, a 2 MiB image is stored and summarized, and read back whole by its URI',
    async (era) => {
      const result = resultOf(
        await inspector([...proxy(NODE, FIXTURES.bigResult), '--protocol-era', era, ...BIG_IMAGE]),
      );
      const uri = expectStoredImage(result);
      if (era === 'modern') expect(result._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'big' });
      else expect(result._meta?.['io.modelcontextprotocol/serverInfo']).toBeUndefined();
      // A later run (another proxy, the same store) reads it by the URI the first one gave.
      const read = await inspector([
        ...proxy(NODE, FIXTURES.bigResult),
        '--protocol-era',
        era,
        '--method',
        'resources/read',
        '--uri',
        uri,
      ]);
      const [contents] = (read.out.result as { contents: Array<{ uri: string; mimeType: string; blob: string }> })
        .contents;
      expect(contents).toMatchObject({ uri, mimeType: 'image/png' });
      expect(Buffer.from(contents!.blob, 'base64').length).toBe(IMAGE_BYTES);
    },
  );
});

describe('the Inspector CLI as a host of MCP Apps (--advertise-apps)', () => {
  const proxy = [NODE, CLI, '--artifact-dir', store, NODE, FIXTURES.bigResult];

  test('it is offered the artifact viewer, an app whose view is a ui:// page; a client that hosts none is not', async () => {
    const apps = async (...flags: string[]) =>
      (await inspectorText([...proxy, ...flags, '--method', 'tools/list', '--app-info']))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { toolName: string; hasApp: boolean; resourceUri?: string });
    const hosted = await apps('--advertise-apps');
    expect(hosted.filter((tool) => tool.hasApp)).toEqual([
      expect.objectContaining({
        toolName: 'artifact_view',
        resourceUri: 'ui://mcp-offload/artifact-viewer',
        resourceMimeType: 'text/html;profile=mcp-app',
      }),
    ]);
    expect(hosted.map((tool) => tool.toolName)).toEqual(expect.arrayContaining(['big-image', 'size-of']));
    const plain = await apps();
    expect(plain.map((tool) => tool.toolName)).not.toContain('artifact_view');
    expect(plain.some((tool) => tool.hasApp)).toBe(false);

    const view = await inspector([
      ...proxy,
      '--advertise-apps',
      '--method',
      'resources/read',
      '--uri',
      'ui://mcp-offload/artifact-viewer',
    ]);
    const [page] = (view.out.result as { contents: Array<{ mimeType: string; text: string }> }).contents;
    expect(page!.mimeType).toBe('text/html;profile=mcp-app');
    expect(page!.text).toMatch(/^<!doctype html>/i);
  });

  test("a stored image's summary tells a host of apps how to show it in the viewer", async () => {
    const hosted = resultOf(await inspector([...proxy, '--advertise-apps', ...BIG_IMAGE]));
    const uri = expectStoredImage(hosted);
    expect(hosted.content.at(-1)!.text).toContain(`call artifact_view with {"uri": "${uri}"}`);
    const plain = resultOf(await inspector([...proxy, ...BIG_IMAGE]));
    expect(JSON.stringify(plain)).not.toContain('artifact_view');
  });
});

describe('over HTTP (the proxy started with --http)', () => {
  async function httpProxy(): Promise<string> {
    const cli = startCli(['--http', '127.0.0.1:0', '--artifact-dir', store, '--', NODE, FIXTURES.bigResult], {
      MCP_OFFLOAD_AUTH_TOKEN: TOKEN,
    });
    const [, url] = await cli.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m);
    return url!;
  }

  test.each([
    ['Streamable HTTP', 'legacy', 'http'],
    ['Streamable HTTP', 'modern', 'http'],
    ['the legacy SSE transport', 'legacy', 'sse'],
  ])(
    'the Inspector CLI with a token, over %s in the %s era: the image is stored, its download link serves its bytes',
    async (_, era, transport) => {
      const mcp = await httpProxy();
      const url = transport === 'sse' ? mcp.replace(/\/mcp$/, '/sse') : mcp;
      const auth = ['--header', `Authorization: Bearer ${TOKEN}`, '--transport', transport];
      const result = resultOf(await inspector([url, ...auth, '--protocol-era', era, ...BIG_IMAGE]));
      const uri = expectStoredImage(result);
      const [artifact] = result._meta?.['mcp-offload/artifacts'] as Array<{ uri: string; downloadUrl: string }>;
      expect(artifact!.uri).toBe(uri);
      // A signed link: fetched without the token, as a browser or a download tool would.
      const download = await fetch(artifact!.downloadUrl);
      expect(download.status).toBe(200);
      const bytes = Buffer.from(await download.arrayBuffer());
      expect(bytes.length).toBe(IMAGE_BYTES);
      expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    },
  );

  test('mcp-remote bridges an SDK client on stdio to the proxy: catalog, offload and the artifact by its URI', async () => {
    const url = await httpProxy();
    const transport = new StdioClientTransport({
      command: NODE,
      args: [MCP_REMOTE, url, '--header', `Authorization:Bearer ${TOKEN}`, '--transport', 'http-only'],
      env,
      stderr: 'pipe',
    });
    let bridgeLog = '';
    transport.stderr?.on('data', (chunk: Buffer) => (bridgeLog += chunk.toString('utf8')));
    const client = new Client({ name: 'real-clients-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()).toMatchObject({ name: 'big' });
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['artifact_list', 'artifact_read', 'big-image', 'size-of']));
      const result = await client.callTool({ name: 'big-image', arguments: { mb: 2 } });
      const uri = expectStoredImage(result as { content: Block[] });
      const read = await client.readResource({ uri });
      const [contents] = read.contents as Array<{ blob: string }>;
      expect(Buffer.from(contents!.blob, 'base64').length).toBe(IMAGE_BYTES);
      // An argument of 1 MiB reaches the server whole through both bridges.
      const size = await client.callTool({ name: 'size-of', arguments: { data: 'z'.repeat(1024 * 1024) } });
      expect(size.content).toEqual([{ type: 'text', text: String(1024 * 1024) }]);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n(what mcp-remote said)\n${bridgeLog.slice(-3000)}`, {
        cause: error,
      });
    } finally {
      await client.close();
    }
  });
});

test('test/clients pins exact versions', () => {
  const manifest = JSON.parse(readFileSync(join(CLIENTS_DIR, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  for (const version of Object.values(manifest.dependencies)) expect(version).toMatch(/^\d+\.\d+\.\d+$/);
});
