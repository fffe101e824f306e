#!/usr/bin/env node
// The floor for any stdio proxy: a second process in the path that only copies bytes, stdin to the
// child's stdin and the child's stdout to stdout, without looking at them. bench/scenarios/small-calls.mjs
// puts it between the client and server-everything to show what merely having a proxy process costs.
//
//   node bench/lib/stdio-relay.mjs [--busy-us N] -- <command> [args...]
//
// --busy-us N: before passing each chunk on, the relay keeps the CPU busy for N µs, as a proxy's own code on the
// message's way would (a calibration: how much a known amount of work per message moves the added median on this
// machine; bench/ab-small-calls.mjs mode busy-relay).
import { spawn } from 'node:child_process';

const dashes = process.argv.indexOf('--');
const own = dashes === -1 ? process.argv : process.argv.slice(0, dashes);
const busyAt = own.indexOf('--busy-us');
const busyNs = busyAt === -1 ? 0n : BigInt(Math.round(Number(own[busyAt + 1]) * 1000));
const busy = () => {
  const start = process.hrtime.bigint();
  while (process.hrtime.bigint() - start < busyNs);
};
const [command, ...args] = dashes === -1 ? [] : process.argv.slice(dashes + 1);
if (!command) {
  process.stderr.write('usage: stdio-relay.mjs [--busy-us N] -- <command> [args...]\n');
  process.exit(2);
}

const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
if (busyNs === 0n) {
  process.stdin.pipe(child.stdin);
  child.stdout.pipe(process.stdout);
} else {
  process.stdin.on('data', (chunk) => {
    busy();
    child.stdin.write(chunk);
  });
  child.stdout.on('data', (chunk) => {
    busy();
    process.stdout.write(chunk);
  });
}
// The client closing our stdin closes the child's; the child's exit is ours.
child.stdin.on('error', () => undefined);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
