import { createHash } from 'node:crypto';
import { FIXTURES, NODE } from '../helpers/fixtures.js';
import { startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { makePng } from '../fixtures/pdf.mjs';

const PNG = makePng(24, 16, 3);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('data: URIs inside JSON string fields', () => {
  let proxy: ProxyUnderTest;
  beforeAll(async () => {
    proxy = await startProxy(testConfig([{ name: 'app', command: NODE, args: [FIXTURES.basic, '--tools', 'echo'] }]));
  });
  afterAll(() => proxy.close());

  test('are stored and replaced in place; the field stays a string and the JSON stays valid', async () => {
    const markdown = `# Weekly chart\n\n![chart](data:image/png;base64,${PNG.toString('base64')})\n\nUp 4 % on last week.`;
    const result = await proxy.client.callTool({
      name: 'echo',
      arguments: { message: JSON.stringify({ title: 'Weekly', report: markdown }) },
    });
    const content = result.content as { type: string; text?: string; uri?: string }[];
    const json = JSON.parse(content[0].text!) as { title: string; report: string };
    const link = content.find((b) => b.type === 'resource_link')!;
    expect(json.title).toBe('Weekly');
    expect(json.report).toBe(`# Weekly chart\n\n![chart](${link.uri})\n\nUp 4 % on last week.`);
    expect(content.find((b) => b.text?.startsWith('File saved:'))?.text).toContain('Dimensions: 24x16');
    const read = await proxy.client.readResource({ uri: link.uri! });
    expect(sha256(Buffer.from((read.contents[0] as { blob: string }).blob, 'base64'))).toBe(sha256(PNG));
  });
});
