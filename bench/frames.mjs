#!/usr/bin/env node
// What reading and writing a relayed message costs the proxy in JavaScript. Reading: a chunk of a pipe that holds one
// line, through the stdio line reader (long literals cut out, as the proxy reads) to a frame. Writing: a frame's id
// set anew (the one edit every relayed request and answer gets), its text made and joined with the newline as the
// stdio write joins it, then handed to a write (Buffer.byteLength stands for the write, which reads the string as
// one). Beside a second checkout's build, alternating, so both meet the same machine:
//
//   node bench/frames.mjs [--a <checkout with a built dist/>] [--rounds 5] [--messages 300000]
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, abArgs } from './lib/ab-args.mjs';
import { median } from './lib/stats.mjs';

const values = abArgs({ messages: { type: 'string', default: '300000' } });
const rounds = Number(values.rounds);
const messages = Number(values.messages);

/** A request as a client writes it and an answer as server-everything writes it (the id first, and last). */
const TEXTS = [
  '{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}',
  '{"result":{"content":[{"type":"text","text":"Echo: hello"}]},"jsonrpc":"2.0","id":12345}',
];

const builds = [
  ...(values.a ? [{ name: 'a', root: resolve(values.a) }] : []),
  { name: values.a ? 'b' : 'this', root: ROOT },
];
const CHUNKS = TEXTS.map((text) => Buffer.from(`${text}\n`));

for (const build of builds) {
  const { Frame } = await import(pathToFileURL(join(build.root, 'dist/wire/frame.js')).href);
  const { LineReader } = await import(pathToFileURL(join(build.root, 'dist/wire/lines.js')).href);
  build.frames = TEXTS.map((text) => Frame.read(text));
  build.reader = new LineReader(
    {
      frame: (frame) => (build.read = frame),
      noise: (line, reason) => {
        throw new Error(`${reason}: ${line}`);
      },
      oversize: () => {
        throw new Error('oversize');
      },
    },
    undefined,
    true,
  );
  build.perMessage = { read: [], write: [] };
}

/** Nanoseconds a message of `run` over `messages` messages. */
function timed(run) {
  const started = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - started) / messages;
}

let bytes = 0;
let ids = 0;
for (let round = 0; round < rounds; round++) {
  for (const build of builds) {
    build.perMessage.read.push(
      timed(() => {
        for (let i = 0; i < messages; i++) {
          build.reader.push(CHUNKS[i & 1]);
          ids += build.read.id;
        }
      }),
    );
    build.perMessage.write.push(
      timed(() => {
        for (let i = 0; i < messages; i++) {
          const [line] = build.frames[i & 1].with(['id'], i).pieces(true);
          bytes += Buffer.byteLength(line + '\n');
        }
      }),
    );
  }
}
if (bytes === 0 || ids === 0) throw new Error('nothing was read or written');
for (const phase of ['read', 'write']) {
  const first = median(builds[0].perMessage[phase]);
  for (const build of builds) {
    const runs = build.perMessage[phase];
    const ns = median(runs);
    process.stdout.write(
      `${phase.padEnd(5)} ${build.name.padEnd(4)} ${ns.toFixed(0).padStart(5)} ns a message  ${(ns / first).toFixed(2)}x  ` +
        `[${runs.map((x) => x.toFixed(0)).join(', ')}]  ${build.root}\n`,
    );
  }
}
