#!/usr/bin/env node
// What writing a relayed message costs the proxy in JavaScript: a frame read from its line, its id set anew (the
// one edit every relayed request and answer gets), its text made and joined with the newline as the stdio write
// joins it, then handed to a write (Buffer.byteLength stands for the write, which reads the string as one). Beside a
// second checkout's build, alternating, so both meet the same machine:
//
//   node bench/frame-write.mjs [--a <checkout with a built dist/>] [--rounds 5] [--messages 300000]
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './lib/stats.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    messages: { type: 'string', default: '300000' },
  },
});
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
for (const build of builds) {
  const { Frame } = await import(pathToFileURL(join(build.root, 'dist/wire/frame.js')).href);
  build.frames = TEXTS.map((text) => Frame.read(text));
  build.perMessage = [];
}

let bytes = 0;
for (let round = 0; round < rounds; round++) {
  for (const build of builds) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < messages; i++) {
      const [line] = build.frames[i & 1].with(['id'], i).pieces(true);
      bytes += Buffer.byteLength(line + '\n');
    }
    build.perMessage.push(Number(process.hrtime.bigint() - started) / messages);
  }
}
if (bytes === 0) throw new Error('nothing was written');
const first = median(builds[0].perMessage);
for (const build of builds) {
  const ns = median(build.perMessage);
  process.stdout.write(
    `${build.name.padEnd(4)} ${ns.toFixed(0).padStart(5)} ns a message  ${(ns / first).toFixed(2)}x  ` +
      `[${build.perMessage.map((x) => x.toFixed(0)).join(', ')}]  ${build.root}\n`,
  );
}
