// An MCP SDK client transport over mcp-offload's own stdio wire (ProcessWire, dist/transports/process.js), so the
// bench's SDK client can read a server through the proxy's reader instead of the SDK's StdioClientTransport: the
// huge-result groups' "direct-linear" reference, which tells the cost of the SDK's reader apart from the rest.
// The same idea as test/helpers/wire-transport.ts, in plain JavaScript over the built dist/ (the bench runs no
// TypeScript). A wire speaks frames, not message objects, so this converts at both ends.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Imports a module of the build in `root` (the checkout the bench runs; `npm run build` makes dist/). */
const dist = (root, path) => import(pathToFileURL(resolve(root, 'dist', path)).href);

/**
 * A ProcessWire that will spawn `command args` once started, as { transport, stdout() }: an SDK Transport over it
 * (with the child's `pid`, as the SDK's StdioClientTransport has), and the child's stdout stream once it runs (to count
 * the bytes it writes). `onStderr(line)` gets the child's stderr lines and the wire's own warnings.
 */
export async function wireTransport({ root = process.cwd(), command, args, cwd, env, onStderr = () => {} }) {
  const [{ ProcessWire }, { Frame }] = await Promise.all([
    dist(root, 'transports/process.js'),
    dist(root, 'wire/frame.js'),
  ]);
  // A logger with pino's shape; ProcessWire writes the child's stderr lines at info level.
  const log = {
    trace() {},
    debug() {},
    info: (_obj, msg) => onStderr(String(msg ?? '')),
    warn: (_obj, msg) => onStderr(`warn: ${msg ?? ''}`),
    error: (_obj, msg) => onStderr(`error: ${msg ?? ''}`),
  };
  log.child = () => log;
  const wire = new ProcessWire({ command, args, cwd, env, log, killGraceMs: 2000 });
  const transport = {
    async start() {
      // The reader keeps long literals out of the frame's text (its blobs); the SDK client wants the whole message,
      // so they go back in here, as the proxy does when it writes a frame it did not change.
      wire.onframe = (frame) => transport.onmessage?.(frame.blobs.restore(frame.message));
      wire.onclose = () => transport.onclose?.();
      wire.onerror = (error) => transport.onerror?.(error);
      await wire.start();
    },
    send: (message) => wire.send(Frame.of(message)),
    close: () => wire.close(),
    get pid() {
      return wire.pid;
    },
  };
  // `child` is private in the TypeScript source but a plain property of the built class; the byte count needs the
  // very stream the wire reads (a second 'data' listener sees the same chunks).
  return { transport, stdout: () => wire.child?.stdout };
}
