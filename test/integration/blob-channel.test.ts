// Payloads a stdio upstream sends as huge literals are kept as bytes on their way through the proxy, as the blobs of
// the frame that carried them (wire/lines.ts, frame.blobs). Concurrent calls through one upstream must each get
// exactly their own payload back, stored or passed on, and once the responses are delivered, or dropped because the
// client gave up, no bytes may stay held (blobsHeldInProcess counts the blobs not yet let go).
import { readFile } from 'node:fs/promises';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { blobsHeldInProcess } from '../../src/wire/blob-table.js';
import { FIXTURES, NODE, connectDirect, type StdioConnection } from '../helpers/fixtures.js';
import { artifactMeta, call, sha256 } from '../helpers/pipeline.js';
import { NO_OFFLOAD, startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';

const big = { name: 'big', command: NODE, args: [FIXTURES.bigResult, '--name', 'big'] };
/** Calls whose results hold literals over the blob threshold (256 KiB), each different. */
const CALLS: [string, Record<string, unknown>][] = [
  ['big-image', { mb: 2 }],
  ['big-image', { mb: 3 }],
  ['big-text', { mb: 0.5 }],
  ['big-json-pdf', { mb: 1 }],
  ['big-embedded', { mb: 1.5 }],
  ['big-audio', { mb: 1 }],
];

let direct: StdioConnection;
let expected: CallToolResult[];

beforeAll(async () => {
  direct = await connectDirect(NODE, [FIXTURES.bigResult, '--name', 'big']);
  expected = [];
  for (const [tool, args] of CALLS) expected.push(await call(direct.client, tool, args));
});
afterAll(() => direct?.close());

/** Runs `check` against a fresh proxy; the blobs held before are the baseline its own must come back to. */
async function withProxy(
  passthrough: boolean,
  check: (proxy: ProxyUnderTest, heldBefore: number) => Promise<void>,
): Promise<void> {
  const heldBefore = blobsHeldInProcess();
  const proxy = await startProxy(testConfig([big], passthrough ? NO_OFFLOAD : {}));
  try {
    await check(proxy, heldBefore);
  } finally {
    await proxy.close();
  }
}

test('passed through, concurrent calls each get their own payloads, exactly as sent; nothing stays held', async () => {
  await withProxy(true, async (proxy, heldBefore) => {
    const results = await Promise.all(CALLS.map(([tool, args]) => call(proxy.client, tool, args)));
    results.forEach((result, i) => expect(result).toEqual(expected[i]));
    expect(blobsHeldInProcess()).toBe(heldBefore);
  });
});

test('offloaded, concurrent calls each store their own payload; nothing stays held', async () => {
  await withProxy(false, async (proxy, heldBefore) => {
    const [first, second, , pdf] = await Promise.all(CALLS.map(([tool, args]) => call(proxy.client, tool, args)));
    const stored = async (result: CallToolResult) => sha256(await readFile(artifactMeta(result)[0].path));
    const image = (result: CallToolResult) => Buffer.from((result.content[0] as { data: string }).data, 'base64');
    expect(await stored(first)).toBe(sha256(image(expected[0])));
    expect(await stored(second)).toBe(sha256(image(expected[1])));
    const pdfBase64 = JSON.parse((expected[3].content[0] as { text: string }).text).content as string;
    expect(await stored(pdf)).toBe(sha256(Buffer.from(pdfBase64, 'base64')));
    expect(blobsHeldInProcess()).toBe(heldBefore);
  });
});

// (This server, like most, sends no answer to a request cancelled in time.)
test('a call the client gives up on leaves nothing held, and the next call still gets its own answer', async () => {
  await withProxy(true, async (proxy, heldBefore) => {
    const abort = new AbortController();
    const dropped = proxy.client
      .callTool({ name: 'big-image', arguments: { mb: 8 } }, undefined, { signal: abort.signal })
      .catch((error: unknown) => error);
    abort.abort('the user pressed stop');
    expect(await dropped).toBeDefined();
    // Answered after the dropped one (the upstream reads requests in order): whatever became of it is over.
    expect(await call(proxy.client, ...CALLS[2])).toEqual(expected[2]);
    expect(blobsHeldInProcess()).toBe(heldBefore);
  });
});
