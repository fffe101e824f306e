// #34 finding: the artifact directory on a full disk (an 8 MB tmpfs, filled by the payloads themselves). A payload
// that cannot be stored stays in the result, inline, after a note that says why (docs/pipeline.md, "When a payload
// cannot be stored"), what the failed write began is removed, and the proxy serves on.
import { expect } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from '@jest/globals';
import { textOf } from './harness/client.js';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

/** Mounting a tmpfs takes root; elsewhere the probe cannot make a full disk, and says so. */
const root = process.getuid?.() === 0;
const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-full-disk-'));
let mounted = false;

beforeAll(() => {
  if (!root) return;
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir]);
  mounted = true;
});

afterAll(() => {
  if (mounted) execFileSync('umount', ['-l', dir]);
  rmSync(dir, { recursive: true, force: true });
});

/** A PNG signature and 3 MB of noise: an image block stored whole (over keepInline's 1 MiB), three fill the disk. */
function image(): string {
  const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(3 * 1024 * 1024)]);
  return png.toString('base64');
}

/** Source-like text, 2 MB: stored by the size safety net. */
const TEXT = 'const line = "some source code that goes on for a while";\n'.repeat(35_000);

// Without root there is no full disk to probe with: the probe fails saying so, rather than passing without running.
const probe = root
  ? eachClient
  : (title: string) =>
      test(title, () => {
        throw new Error('this probe needs root, to mount an 8 MB tmpfs as the full disk');
      });

probe(
  'the artifact directory on a full disk',
  async (client) => {
    // Images and long texts in turn, more than the disk holds.
    for (let i = 0; i < 6; i++) {
      const kind = i % 2 === 0 ? 'image' : 'text';
      const answer = await client.ask(
        'tools/call',
        { name: `${HOSTILE}__act`, arguments: { kind } },
        { timeoutMs: 30_000 },
      );
      expect(answer).toMatchObject({ result: expect.any(Object) });
      const blocks = (answer.result as { content: Array<{ type: string; text?: string }> }).content;
      // Stored (a link), or kept inline, whole, after a note saying why: never lost.
      const stored = blocks.some((block) => block.type === 'resource_link');
      const whole = kind === 'image' ? blocks.some((block) => block.type === 'image') : textOf(answer).includes(TEXT);
      const inline = whole && /no space|ENOSPC|full|could not/i.test(textOf(answer));
      expect({ kind, stored, inline }).not.toEqual({ kind, stored: false, inline: false });
    }
    // What a failed write began is removed: a full disk does not stay full of the proxy's leftovers.
    const temporary = join(dir, '.tmp');
    expect(existsSync(temporary) ? readdirSync(temporary) : []).toEqual([]);
  },
  {
    clients: [{ transport: 'stdio', era: 'legacy' }],
    timeoutMs: 120_000,
    proxy: { args: ['--artifact-dir', dir] },
    upstream: {
      call: (params) =>
        (params.arguments as { kind?: string }).kind === 'image'
          ? { content: [{ type: 'image', mimeType: 'image/png', data: image() }] }
          : { content: [{ type: 'text', text: TEXT }] },
    },
  },
);
