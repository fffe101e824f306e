// Scenario group "huge-json": like huge-image, but the payload is a base64 PDF inside a field of
// JSON carried by a text block: `big-json-pdf {mb}` of the fixture server, 1, 10, 50 and 100 MiB
// (decoded). Through the proxy, the binary-strings layer finds the PDF by its signature, stores it
// and splices a small {"$artifact": ...} reference into the JSON in its place. Its 50 MB proxy row is where
// the relay-core issue's (#32) memory goal is judged (peak RSS ≤ 1.5× the message).
//
// Environment: BENCH_HUGE_JSON_MB=1,10,50,100 (decoded sizes in MiB),
//              BENCH_HUGE_JSON_MODES=direct,proxy,direct-linear, BENCH_SKIP_SLOW=1 (skip direct above 50 MiB).
import { MiB, base64Length, hugeResultGroup } from '../lib/huge-result.mjs';

/** The fixture's PDF is exactly round(mb MiB) bytes (at least its 9-byte header). */
const decodedBytes = (mb) => Math.max(9, Math.round(mb * MiB));
/** The text block: JSON.stringify({ name, format, content }) with the base64 as content. */
const ENVELOPE = JSON.stringify({ name: 'report', format: 'pdf', content: '' }).length;
const textLength = (bytes) => ENVELOPE + base64Length(bytes);
const SMALL_TEXT = 10_000;

export default hugeResultGroup({
  name: 'huge-json',
  title: 'Huge base64 PDF in a JSON text field',
  summaryOrder: 2.5,
  what: 'JSON PDF',
  env: 'BENCH_HUGE_JSON',
  tool: 'big-json-pdf',
  decodedBytes,
  payloadChars: base64Length,
  checkDirect(result, bytes) {
    const text = result.blocks.find((b) => b.type === 'text');
    if (
      result.blocks.length !== 1 ||
      text?.textLength !== textLength(bytes) ||
      !text.textHead.startsWith('{"name":"report","format":"pdf","content":"JVBERi0')
    ) {
      return `expected one text block of ${textLength(bytes)} chars holding the JSON, got ${JSON.stringify(result.blocks).slice(0, 500)}`;
    }
  },
  checkProxy(result) {
    const json = result.blocks.find(
      (b) => b.type === 'text' && b.textHead.startsWith('{"name":"report","format":"pdf","content":{"$artifact":'),
    );
    if (!json)
      return `expected the JSON with an {"$artifact": ...} reference in place of content, got ${JSON.stringify(result.blocks).slice(0, 500)}`;
    if (result.blocks.some((b) => b.textLength > SMALL_TEXT)) return 'a large text block reached the client';
  },

  method: `One \`tools/call\` of \`big-json-pdf {mb}\` (test/fixtures/big-result-server.mjs): a single text block holding
\`JSON.stringify({ name: "report", format: "pdf", content: <base64> })\`, where the base64 encodes exactly mb MiB that start with
\`%PDF-1.4\\n\` and are padded with filler bytes. Same modes and clients as huge-image:

- **direct**: the client spawns the fixture server; the whole JSON text reaches the client (checked: one text block of the exact length).
- **proxy**: \`node dist/cli.js --log-level warn --artifact-dir <fresh temp dir> -- node test/fixtures/big-result-server.mjs\`, default settings:
  the stdio reader keeps the inner payload as bytes and inlays a marker in the text in its place (src/wire/literal-cutter.ts,
  src/wire/inlay.ts), the binary-strings layer recognizes the PDF signature in \`content\`, decodes and stores the PDF from those bytes and splices a reference
  \`{"$artifact": "artifact://…", "path", "mimeType", "size"}\` in its place (checked on every run: the JSON with the reference, no text block
  over 10 000 chars, a resource_link of the exact size, exactly one file of that size in the artifact directory).
- **direct-linear** (reference): direct, read through mcp-offload's \`ProcessWire\` (bench/lib/wire-transport.mjs) instead of the SDK's
  \`StdioClientTransport\`.`,
});
