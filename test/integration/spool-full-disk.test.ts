// A long literal is spooled to disk as it arrives (wire/spool.ts); when the disk is full, it must go on in memory,
// byte for byte, and the call still gets its payload. The disk here is a 1 MiB tmpfs this test mounts (it needs
// root; without it the test fails and says so, rather than passing without having looked).
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import type { Frame } from '../../src/wire/frame.js';
import { LineReader } from '../../src/wire/lines.js';
import { configureSpool } from '../../src/wire/spool.js';
import { FIXTURES, NODE, connectDirect, type StdioConnection } from '../helpers/fixtures.js';
import { call } from '../helpers/pipeline.js';
import { startProxy, testConfig } from '../helpers/proxy.js';

let mountPoint: string;

beforeAll(async () => {
  mountPoint = await mkdtemp(join(tmpdir(), 'spool-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', mountPoint], { stdio: 'pipe' });
  } catch (error) {
    const detail = (error as { stderr?: Buffer }).stderr?.toString().trim() || String(error);
    throw new Error(`this test mounts a 1 MiB tmpfs as its full disk and could not (it needs root): ${detail}`, {
      cause: error,
    });
  }
});
afterAll(async () => {
  execFileSync('umount', ['-l', mountPoint], { stdio: 'pipe' });
  await rm(mountPoint, { recursive: true, force: true });
});

/** Reads one line as the stdio wires do, in 64 KiB chunks each a buffer of its own, handed over. */
function read(line: Buffer): Frame {
  const frames: Frame[] = [];
  const reader = new LineReader(
    { frame: (frame) => frames.push(frame), noise: () => undefined, oversize: () => undefined },
    undefined,
    true,
  );
  for (let at = 0; at < line.length; at += 65_536) reader.push(Buffer.from(line.subarray(at, at + 65_536)), true);
  expect(frames).toHaveLength(1);
  return frames[0];
}

test('literals the full disk refuses stay in memory, byte for byte; the failure is logged once', () => {
  let logged = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged += chunk.toString('utf8');
      done();
    },
  });
  const message = {
    jsonrpc: '2.0',
    id: 1,
    result: {
      // Spooled from 256 KiB on, refused at 1 MiB: what was written comes back into memory.
      data: 'A'.repeat(3 * 1024 * 1024),
      // Another one, refused the same way.
      text: 'é€😀'.repeat(400_000),
    },
  };
  const line = Buffer.from(`${JSON.stringify(message)}\n`);
  const undo = configureSpool({ dir: mountPoint, minBytes: 256 * 1024, log: pino({ level: 'debug' }, sink) });
  try {
    const frame = read(line);
    const { data, text } = frame.message.result as { data: string; text: string };
    expect(frame.blobs.view(data)!.spooled).toBe(false);
    expect(frame.blobs.view(text)!.spooled).toBe(false);
    expect(Buffer.from(frame.encode()).equals(line.subarray(0, -1))).toBe(true);
    expect(frame.blobs.deliver(frame.message)).toEqual(message);

    // Past the size of the disk at once: the first write fails, and the literal never leaves memory.
    configureSpool({ minBytes: 2 * 1024 * 1024 });
    const again = read(line);
    expect(again.blobs.view((again.message.result as { data: string }).data)!.spooled).toBe(false);
    expect(again.blobs.deliver(again.message)).toEqual(message);
  } finally {
    undo();
  }
  const lines = logged
    .trim()
    .split('\n')
    .map((entry) => JSON.parse(entry) as { level: number; msg: string; code?: string });
  expect(lines.length).toBeGreaterThanOrEqual(3);
  expect(lines.filter((entry) => entry.level === 40)).toHaveLength(1);
  expect(lines[0]).toMatchObject({ level: 40, code: 'ENOSPC' });
  expect(lines[0].msg).toMatch(/holding it in memory/);
});

describe('through the proxy, with the artifacts (and so the spool) on the full disk', () => {
  let direct: StdioConnection;

  beforeAll(async () => {
    direct = await connectDirect(NODE, [FIXTURES.bigResult, '--name', 'big']);
  });
  afterAll(() => direct?.close());

  test('the call still gets its payload, as the upstream sent it', async () => {
    const undo = configureSpool({ minBytes: 256 * 1024 });
    const proxy = await startProxy(
      testConfig([{ name: 'big', command: NODE, args: [FIXTURES.bigResult, '--name', 'big'] }], {
        artifacts: { dir: join(mountPoint, 'artifacts') },
      }),
    );
    try {
      for (const [tool, args] of [
        ['big-image', { mb: 3 }],
        ['big-json-pdf', { mb: 2 }],
      ] as const) {
        const [payload] = (await call(direct.client, tool, args)).content;
        const result: CallToolResult = await call(proxy.client, tool, args);
        // Neither spooled nor stored (a note says why): the payload reached the client whole, next to the note.
        const same = result.content.filter((block) => JSON.stringify(block) === JSON.stringify(payload));
        expect(same).toHaveLength(1);
        expect(JSON.stringify(result.content)).toMatch(/could not be stored.*disk full \(ENOSPC\)/);
      }
    } finally {
      await proxy.close();
      undo();
    }
  });
});
