// #34 finding 6, the marker the proxy still has: a string literal of 256 KiB or more that a client writes on stdio is
// kept aside as bytes (src/wire/literal-cutter.ts) and stands in the parsed message as a marker, "\u0000mcp-offload-
// blob-<random>:<n>". Quoted into an error message ("Tool <marker> not found") or carried into a message the proxy
// makes, the marker and its random part reached the client. Every such value is read back first: errors quote what
// the client sent (cut short), and what goes on carries the client's own text.
import { expect } from '@jest/globals';
import { rawText, type ProbeClient } from './harness/client.js';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

/** Over the length the stdio reader keeps aside as bytes (BLOB_LITERAL_BYTES, 256 KiB). */
const LONG = 'L'.repeat(300_000);
const long = JSON.stringify(LONG);

/** Requests that put a long client string where the proxy reads it: as a name, a URI, a cursor, a method. */
const REQUESTS: Array<[string, string]> = [
  [LONG, ''],
  ['tools/call', `"name":${long},"arguments":{}`],
  ['prompts/get', `"name":${long}`],
  ['resources/read', `"uri":${long}`],
  ['completion/complete', `"ref":{"type":"ref/prompt","name":${long}},"argument":{"name":"a","value":"b"}`],
  ['completion/complete', `"ref":{"type":"ref/resource","uri":${long}},"argument":{"name":"a","value":"b"}`],
  ['tasks/get', `"taskId":${long}`],
  ['tools/list', `"cursor":${long}`],
  ['tools/call', `"name":"artifact_read","arguments":{"uri":${long}}`],
  ['tools/call', `"name":"artifact_list","arguments":{"server":${long},"tool":${long}}`],
];

/** Whatever the proxy answers, no marker of its own is in it. */
function expectNoMarker(text: string): void {
  expect(text).not.toMatch(/mcp-offload-blob|\\u0000/);
}

async function probe(client: ProbeClient): Promise<void> {
  for (const [method, members] of REQUESTS) expectNoMarker(rawText(await client.askRaw(method, members)));
  // The proxy's own errors quote a client's value, not pages of it.
  const unknown = await client.askRaw('tools/call', `"name":${long},"arguments":{}`);
  expect(unknown).toMatchObject({
    error: { message: expect.stringMatching(/^Tool L{200}… \(300000 characters\) not found$/) },
  });
  // An id of that length is answered under the same id.
  const id = await client.askRaw('ping', '', { id: LONG });
  expect(id.id).toBe(LONG);
  // A 2026-07-28 request claiming a long protocol version is refused with the claim quoted, not its marker.
  if (client.era === 'modern') {
    const claim = `"_meta":{"io.modelcontextprotocol/protocolVersion":${long}}`;
    expectNoMarker(rawText(await client.askRaw('tools/list', claim)));
  }
  // What goes on to the upstream is the client's own text, whole.
  const answer = await client.askRaw('tools/call', `"name":"${HOSTILE}__act","arguments":{"text":${long}}`);
  expect(answer).toMatchObject({ result: { content: [{ type: 'text', text: `got ${LONG.length} characters` }] } });
}

eachClient('long string literals from a client on stdio', probe, {
  clients: [
    { transport: 'stdio', era: 'legacy' },
    { transport: 'stdio', era: 'modern' },
  ],
  timeoutMs: 90_000,
  upstream: {
    call(params) {
      const text = (params.arguments as { text?: unknown } | undefined)?.text;
      return { content: [{ type: 'text', text: `got ${typeof text === 'string' ? text.length : 'no'} characters` }] };
    },
  },
});
