import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Frame, type Message } from '../../src/wire/frame.js';
import type { Wire } from '../../src/wire/wire.js';

/**
 * An MCP SDK transport over one of the proxy's wires (a ProcessWire that runs the CLI, say), so a test's SDK client
 * can talk through it: frames in, message objects out.
 */
export function transportOf(wire: Wire & { start?(): Promise<void> }): Transport {
  const transport: Transport = {
    start: async () => {
      // Blobs the reader kept out of the text go back in: the SDK client reads the whole message.
      wire.onframe = (frame) => transport.onmessage?.(frame.blobs.restore(frame.message) as JSONRPCMessage);
      wire.onclose = () => transport.onclose?.();
      wire.onerror = (error) => transport.onerror?.(error);
      await wire.start?.();
    },
    send: (message) => wire.send(Frame.of(message as Message)),
    close: () => wire.close(),
  };
  return transport;
}
