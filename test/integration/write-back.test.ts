// Nothing written back is lost (issue #33, item 4): a summary or preview the proxy handed out in place of content,
// carried back in a tool call, stops the call before the upstream sees it. With the real server-filesystem.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult, ImageContent } from '@modelcontextprotocol/sdk/types.js';
import { makePng, makeSolidPng } from '../fixtures/pdf.mjs';
import { startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { filesystem, filesystemRoot } from '../helpers/third-party.js';

const root = filesystemRoot();
const big = join(root, 'big.json');
// About 688 KB of pretty-printed JSON, as in the issue.
const original = JSON.stringify(
  Array.from({ length: 6030 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['alpha', 'beta'], ok: i % 2 === 0 })),
  null,
  2,
);
let proxy: ProxyUnderTest;

beforeAll(async () => {
  writeFileSync(big, original);
  proxy = await startProxy(testConfig([filesystem(root)]));
});
afterAll(() => proxy?.close());

const call = (name: string, args: Record<string, unknown>) =>
  proxy.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const texts = (result: CallToolResult) =>
  result.content.map((block) => (block.type === 'text' ? block.text : '')).filter(Boolean);

let summary: string;
let preview: string;
let uri: string;

beforeAll(async () => {
  const read = await call('read_text_file', { path: big });
  [summary, preview] = texts(read) as [string, string];
  uri = /^Resource: (artifact:\/\/\S+)$/m.exec(summary)![1]!;
  expect(preview).toMatch(/^… \[\d+ lines, \d+ characters not shown\] …$/m);
});

function expectRefused(result: CallToolResult, where: string): void {
  expect(result.isError).toBe(true);
  const [text] = texts(result);
  expect(text).toMatch(/^mcp-offload did not send this call: /);
  expect(text).toContain(`the argument ${where} holds`);
  expect(text).toContain('edit_file');
  // The file is as it was: the upstream never got the call.
  expect(readFileSync(big, 'utf8')).toBe(original);
}

test('write_file with the whole result of read_text_file (summary and preview) is not sent', async () => {
  const result = await call('write_file', { path: big, content: `${summary}\n${preview}` });
  expectRefused(result, 'content');
  expect(texts(result)[0]).toContain(`a summary mcp-offload wrote in place of ${uri}`);
  expect(texts(result)[0]).toContain(`artifact_read {uri: "${uri}"`);
});

test('write_file with the summary alone, or the preview alone, edited or not, is not sent', async () => {
  expectRefused(await call('write_file', { path: big, content: summary }), 'content');
  expectRefused(
    await call('write_file', { path: big, content: preview.replace('"item 0"', '"item zero"') }),
    'content',
  );
  // Stripped of its "Preview" heading, as a model would before writing it.
  expectRefused(await call('write_file', { path: big, content: preview.split('\n').slice(1).join('\n') }), 'content');
});

test('edit_file whose new text is the summary or the preview is not sent', async () => {
  const edits = (newText: string) => [{ oldText: '"name": "item 0"', newText }];
  expectRefused(await call('edit_file', { path: big, edits: edits(summary) }), 'edits[0].newText');
  expectRefused(await call('edit_file', { path: big, edits: edits(preview) }), 'edits[0].newText');
});

test('write_file with an artifact_read answer cut short is not sent', async () => {
  const cut = texts(await call('artifact_read', { uri, maxChars: 100 }))[0]!;
  expect(cut).toMatch(/… \[cut at 100 of \d+ characters; narrow the range or query\]/);
  expectRefused(await call('write_file', { path: big, content: cut }), 'content');
});

test('the way the refusal points to works: edit_file with just the text to replace', async () => {
  writeFileSync(big, original);
  const result = await call('edit_file', {
    path: big,
    edits: [{ oldText: '"name": "item 0"', newText: '"name": "first"' }],
  });
  expect(result.isError).toBeFalsy();
  expect(readFileSync(big, 'utf8')).toBe(original.replace('"name": "item 0"', '"name": "first"'));
  writeFileSync(big, original);
});

test('no false positives: a text that names artifacts, or has a line of a summary, is written byte for byte', async () => {
  const notes = join(root, 'notes.md');
  const samples = [
    'The artifact store keeps each artifact once.\n',
    `See ${uri} for the data.\nResource: ${uri}\n`,
    'File saved: /tmp/report.pdf\nType: application/pdf\n\nSize: 12 bytes\n',
    'Type: text/plain\nSize: 3 bytes\n',
    '… [3 lines not shown] …\n… [cut at some point]\n',
    `{"$artifact": "${uri}", "note": "an artifact"}`,
  ];
  for (const content of samples) {
    const result = await call('write_file', { path: notes, content });
    expect({ content, result: texts(result) }).toEqual({
      content,
      result: [expect.stringMatching(/^Successfully wrote/)],
    });
    expect(readFileSync(notes, 'utf8')).toBe(content);
  }
});

test('a text that mentions artifact:// URIs the proxy never handed out is written byte for byte', async () => {
  const notes = join(root, 'uris.md');
  const samples = [
    'see artifact://nothing/x.png\n',
    '# Artifact URIs\n\nThey look like `artifact://<server>/<tool>_<sha12>.<ext>`, e.g. ![chart](artifact://nothing/x.png).\n',
    'artifact://nothing/x.png',
    'artifact://nothing',
    '{"$artifact": "artifact://nothing/x.png", "mimeType": "image/png", "size": 3}',
    `known ${uri} and unknown artifact://nothing/x.png#2 side by side.`,
  ];
  for (const content of samples) {
    const result = await call('write_file', { path: notes, content });
    expect({ content, result: texts(result) }).toEqual({
      content,
      result: [expect.stringMatching(/^Successfully wrote/)],
    });
    expect(readFileSync(notes, 'utf8')).toBe(content);
  }
});

test('one of the URIs the proxy hands out, unknown to this owner, still stops the call, whole or in a text', async () => {
  const notes = join(root, 'stale.md');
  writeFileSync(notes, 'as it was\n');
  const stale = 'artifact://fs/read_text_file_0123456789ab.png';
  for (const content of [stale, `![chart](${stale})\n`]) {
    const result = await call('write_file', { path: notes, content });
    expect(result.isError).toBe(true);
    expect(texts(result)[0]).toContain(`the arguments hold ${stale}, which mcp-offload does not hold for this client`);
    expect(readFileSync(notes, 'utf8')).toBe('as it was\n');
  }
});

// A tool saving an image, given the base64 of a preview the proxy showed, would overwrite the original with a
// scaled-down copy. The preview is known by the mark in its own bytes. server-filesystem has no binary write, so
// write_file stands for such a tool: what counts is that the argument carries the preview.
describe('image previews carried back', () => {
  const previewOf = async (name: string, png: Buffer) => {
    const path = join(root, name);
    writeFileSync(path, png);
    const read = await call('read_media_file', { path });
    const image = read.content.find((block): block is ImageContent => block.type === 'image');
    const imageUri = /^Resource: (artifact:\/\/\S+)$/m.exec(texts(read).join('\n'))?.[1];
    expect({ image: image?.mimeType, uri: imageUri }).toEqual({ image: expect.any(String), uri: expect.any(String) });
    return { image: image!, uri: imageUri! };
  };

  function expectImageRefused(result: CallToolResult, where: string, previewed: string, target: string): void {
    expect(result.isError).toBe(true);
    const [text] = texts(result);
    expect(text).toMatch(/^mcp-offload did not send this call: /);
    expect(text).toContain(`the argument ${where} holds an image preview mcp-offload made of ${previewed}`);
    expect(text).toContain('use the original file');
    // Never written: the upstream did not get the call.
    expect(() => readFileSync(target)).toThrow();
  }

  test('a photo preview (JPEG) and a flat one (PNG), as base64 or a data: URI, are not sent', async () => {
    const photo = await previewOf('noise.png', makePng(1800, 1200, 7));
    const flat = await previewOf('stripes.png', makeSolidPng(4000, 3000));
    expect([photo.image.mimeType, flat.image.mimeType]).toEqual(['image/jpeg', 'image/png']);
    for (const { image, uri: previewed } of [photo, flat]) {
      const target = join(root, `copy-${image.mimeType.slice(6)}.txt`);
      expectImageRefused(await call('write_file', { path: target, content: image.data }), 'content', previewed, target);
      const dataUri = `data:${image.mimeType};base64,${image.data}`;
      expectImageRefused(await call('write_file', { path: target, content: dataUri }), 'content', previewed, target);
    }
  }, 60_000);

  test('an ordinary base64 image, not a preview of the proxy, is written byte for byte', async () => {
    const target = join(root, 'ordinary.txt');
    for (const png of [makePng(40, 30, 3), makeSolidPng(300, 200)]) {
      const content = png.toString('base64');
      const result = await call('write_file', { path: target, content });
      expect(texts(result)).toEqual([expect.stringMatching(/^Successfully wrote/)]);
      expect(readFileSync(target, 'utf8')).toBe(content);
    }
  });
});
