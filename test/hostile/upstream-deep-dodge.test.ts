// A hostile upstream hides a large image beside a structuredContent thousands of levels deep. Such a result once got
// past the pipeline whole: deeper than ~4 000 levels with a number a double cannot hold, reading the line overflowed
// the stack (JSON.parse with a reviver recurses) and the answer was dropped; deeper still, the pipeline's own walks
// and JSON.stringify overflowed and it passed the result on unchanged, the image into the client's context. Now the
// image is stored either way; a small deep structuredContent arrives as it came, a large one is stored like any other.
import { expect } from '@jest/globals';
import { makePng } from '../fixtures/pdf.mjs';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

// Wider than a vision model takes (and noise, so about 1.8 MB): stored, and shown scaled down.
const IMAGE = (makePng(2000, 300) as Buffer).toString('base64');

/** How deep `{"a":[{"a":[… n …]}]}` nests, and its innermost value, found without recursion. */
function innermost(value: unknown): { depth: number; leaf: unknown } {
  let depth = 0;
  let at = value;
  while (typeof at === 'object' && at !== null) {
    depth++;
    at = Array.isArray(at) ? at[0] : (at as { a?: unknown }).a;
  }
  return { depth, leaf: at };
}

interface Answer {
  result: {
    content: Array<{ type: string; data?: string; text?: string }>;
    structuredContent: unknown;
  };
}

eachClient(
  'a large image beside a structuredContent 5 000 and 40 000 levels deep',
  async (client) => {
    const call = async (depth: number) =>
      (await client.ask('tools/call', { name: `${HOSTILE}__act`, arguments: { depth } }, { timeoutMs: 30_000 }))
        .result as Answer['result'];
    for (const depth of [5_000, 40_000]) {
      const { content, structuredContent } = await call(depth);
      // Not the image: its summary, link and a scaled-down preview.
      expect(content.some((block) => block.data === IMAGE)).toBe(false);
      expect(content.map((block) => block.text ?? '').join('\n')).toMatch(/Resource: artifact:\/\/\S+\.png/);
      if (depth === 5_000) {
        // 20 KB: left as it came, its innermost number (no double holds it) read as a number.
        expect(innermost(structuredContent)).toEqual({ depth, leaf: Number('12345678901234567890') });
      } else {
        // 160 KB: stored, as any structuredContent over the inline limit, and referenced.
        expect(structuredContent).toMatchObject({ $artifact: expect.stringMatching(/^artifact:\/\/.*\.json$/) });
      }
    }
  },
  {
    timeoutMs: 90_000,
    upstream: {
      async call(params, connection, id) {
        const depth = (params.arguments as { depth: number }).depth;
        const deep = `${'{"a":['.repeat(depth / 2)}12345678901234567890${']}'.repeat(depth / 2)}`;
        const image = `{"type":"image","mimeType":"image/png","data":"${IMAGE}"}`;
        await connection.write(
          `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[${image}],"structuredContent":${deep}}}\n`,
        );
        return undefined;
      },
    },
  },
);
