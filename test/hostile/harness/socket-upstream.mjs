#!/usr/bin/env node
// The process mcp-offload starts for a scripted upstream: its stdin and stdout joined to a socket on 127.0.0.1 where
// the probe plays the server (scripted-upstream.ts), so a probe writes exactly the bytes it wants, as slowly as it
// wants, without a fixture of its own.
//
//   node socket-upstream.mjs --port <port>
import net from 'node:net';
import process from 'node:process';

const at = process.argv.indexOf('--port');
const port = Number(process.argv[at + 1]);
if (at < 0 || !Number.isInteger(port)) {
  process.stderr.write('usage: socket-upstream.mjs --port <port>\n');
  process.exit(2);
}

const socket = net.connect(port, '127.0.0.1');
process.stdin.pipe(socket);
socket.pipe(process.stdout);
// The proxy closed our stdin (a restart, a shutdown) or the probe hung up: either way this connection is over.
process.stdin.on('end', () => socket.end());
socket.on('close', () => process.exit(0));
socket.on('error', (error) => {
  process.stderr.write(`socket-upstream: ${error.message}\n`);
  process.exit(1);
});
process.stdout.on('error', () => process.exit(0));
