// Scenario group "huge-image": one tool call whose result is a single image block of 1, 10, 50 and
// 100 MiB (decoded), straight from the server ("direct") and through mcp-offload ("proxy", default
// settings: the image is written to the artifact directory and the client gets a resource_link).
// A third mode, "direct-linear", is a reference: direct, but read by mcp-offload's own stdio reader (ProcessWire).
// Its 50 MB proxy row is where the relay-core issue's (#32) memory goal is judged (peak RSS ≤ 1.5× the message).
// The machinery is shared with huge-json: bench/lib/huge-result.mjs.
//
// Environment: BENCH_HUGE_IMAGE_MB=1,10,50,100 (decoded sizes in MiB),
//              BENCH_HUGE_IMAGE_MODES=direct,proxy,direct-linear (which modes to run),
//              BENCH_SKIP_SLOW=1 (skip the direct mode above 50 MiB).
import { MiB, base64Length, hugeResultGroup } from '../lib/huge-result.mjs';

/** The fixture's image is exactly round(mb MiB) bytes (at least 69); its base64 is 4*ceil(n/3) chars. */
const decodedBytes = (mb) => Math.max(69, Math.round(mb * MiB));

export default hugeResultGroup({
  name: 'huge-image',
  title: 'Huge image result',
  summaryOrder: 2,
  what: 'image',
  env: 'BENCH_HUGE_IMAGE',
  tool: 'big-image',
  decodedBytes,
  payloadChars: base64Length,
  checkDirect(result, bytes) {
    const image = result.blocks.find((b) => b.type === 'image');
    if (!image || image.dataLength !== base64Length(bytes)) {
      return `expected one image block of ${base64Length(bytes)} base64 chars, got ${JSON.stringify(result.blocks)}`;
    }
  },
  // An image within keepInline (1 MiB, 1568 px; this one is 1x1) whose base64 also fits the client's whole-result
  // budget (1 MiB of JSON for a client the proxy does not know, src/pipeline/client-budgets.ts) passes as it came:
  // up to 768 KiB decoded. Every size here is above it, so every proxy row stores the image.
  inlineUpTo: (MiB / 4) * 3,
  checkProxy(result, bytes) {
    const full = base64Length(bytes);
    // What may be inline is the scaled-down preview, never the stored image itself.
    if (result.blocks.some((b) => b.type === 'image' && (b.dataLength === full || b.dataLength > base64Length(MiB)))) {
      return 'the image reached the client inline';
    }
  },

  method: `One \`tools/call\` of \`big-image {mb}\` (test/fixtures/big-result-server.mjs): a single \`image/png\` block whose
decoded size is mb MiB, sent base64-encoded. The two compared modes both use an SDK \`Client\` over the SDK's own
\`StdioClientTransport\` (\`maxBufferSize\` 1 GiB, \`env: process.env\`); a third mode is a reference:

- **direct**: the client spawns \`node test/fixtures/big-result-server.mjs\`; the whole base64 payload reaches the client
  (the result schema also checks the base64 with \`atob\`).
- **proxy**: the client spawns \`node dist/cli.js --log-level warn --artifact-dir <fresh temp dir> -- node test/fixtures/big-result-server.mjs\`
  with default settings: the proxy writes the image to the artifact directory and answers with a short summary, a preview scaled
  down to fit a vision model and a \`resource_link\` (checked on every run: no image block but the preview, a resource_link of the
  exact size, and exactly one file of that size in the artifact directory). An image within \`keepInline\` (1 MiB, 1568 px) whose
  base64 also fits the client's whole-result budget (1 MiB of JSON for a client the proxy does not know) passes inline as it came,
  for vision models: this 1x1 image up to 768 KiB decoded, below every size measured here.
- **direct-linear** (reference, not one of the compared modes): as direct, but the client reads the server through mcp-offload's
  own stdio wire, \`ProcessWire\` (dist/transports/process.js, whose reader is linear in the message size and keeps long literals
  out of the parsed text), adapted to an SDK transport (bench/lib/wire-transport.mjs, which puts the literals back for the client)
  instead of the SDK's \`StdioClientTransport\`. The difference from direct is the cost of the SDK's reader.`,
});
