// Ownership by principal (issue #33, item 5): over stdio the local user owns what the proxy stores, so the next
// stdio session (a restarted client, a tool that starts the proxy once per call) reads a URI an earlier one got.
// Over HTTP the principal owns it (test/integration/sidecar-access.test.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectLinear, leftovers, removeArtifactDir, stopAllCli } from '../helpers/cli.js';
import { NODE } from '../helpers/fixtures.js';
import { FILESYSTEM_ENTRY, filesystemRoot } from '../helpers/third-party.js';

const root = filesystemRoot();
const file = join(root, 'big.json');
const content = JSON.stringify(
  Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b', 'c'] })),
  null,
  2,
);
writeFileSync(file, content);

afterAll(async () => {
  await stopAllCli();
  expect(leftovers()).toEqual([]);
  removeArtifactDir();
});

const proxy = () => connectLinear(['--log-level', 'warn', '--', NODE, FILESYSTEM_ENTRY, root]);

function artifactUri(result: unknown): string {
  const texts = (result as { content: { type: string; text?: string }[] }).content.map((b) => b.text ?? '').join('\n');
  const uri = /artifact:\/\/\S+/.exec(texts)?.[0];
  if (!uri) throw new Error(`no artifact URI in ${texts.slice(0, 500)}`);
  return uri;
}

test('a second stdio proxy process, started after the first ended, reads the URI the first gave out', async () => {
  const first = await proxy();
  const uri = artifactUri(await first.client.callTool({ name: 'read_text_file', arguments: { path: file } }));
  await first.close();

  const second = await proxy();
  try {
    const read = await second.client.readResource({ uri });
    expect((read.contents[0] as { text: string }).text).toBe(content);
    const listed = await second.client.listResources();
    expect(listed.resources.map((r) => r.uri)).toContain(uri);
  } finally {
    await second.close();
  }
});
