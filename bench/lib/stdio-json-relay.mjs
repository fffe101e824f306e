#!/usr/bin/env node
// The floor for a stdio proxy that reads what it relays: like stdio-relay.mjs, but every line is parsed in
// both directions (a proxy must know a message to route or rewrite it) and, with --stringify, written as
// JSON.stringify makes it instead of as it came. bench/ab-small-calls.mjs runs it beside the byte relay, so the
// cost of looking at messages is told apart from the cost of a second process.
//
//   node bench/lib/stdio-json-relay.mjs [--stringify] -- <command> [args...]
import { spawn } from 'node:child_process';

const dashes = process.argv.indexOf('--');
const stringify = process.argv.slice(2, dashes).includes('--stringify');
const [command, ...args] = dashes === -1 ? [] : process.argv.slice(dashes + 1);
if (!command) {
  process.stderr.write('usage: stdio-json-relay.mjs [--stringify] -- <command> [args...]\n');
  process.exit(2);
}

const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });

/** Copies whole lines from `input` to `output`, parsing each on the way. */
function relayLines(input, output) {
  let pending = '';
  input.setEncoding('utf8');
  input.on('data', (chunk) => {
    pending += chunk;
    let end;
    while ((end = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      const message = JSON.parse(line);
      output.write(stringify ? JSON.stringify(message) + '\n' : line + '\n');
    }
  });
}
relayLines(process.stdin, child.stdin);
relayLines(child.stdout, process.stdout);
child.stdin.on('error', () => undefined);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
