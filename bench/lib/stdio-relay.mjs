#!/usr/bin/env node
// The floor for any stdio proxy: a second process in the path that only copies bytes, stdin to the
// child's stdin and the child's stdout to stdout, without looking at them. bench/scenarios/small-calls.mjs
// puts it between the client and server-everything to show what merely having a proxy process costs.
//
//   node bench/lib/stdio-relay.mjs -- <command> [args...]
import { spawn } from 'node:child_process';

const dashes = process.argv.indexOf('--');
const [command, ...args] = dashes === -1 ? [] : process.argv.slice(dashes + 1);
if (!command) {
  process.stderr.write('usage: stdio-relay.mjs -- <command> [args...]\n');
  process.exit(2);
}

const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
// The client closing our stdin closes the child's; the child's exit is ours.
child.stdin.on('error', () => undefined);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
