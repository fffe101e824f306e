import type { Frame, Id } from './frame.js';

/**
 * What a frame came with besides its bytes: an HTTP request's headers and who sent it. Stdio frames have none.
 */
export interface FrameContext {
  /** The HTTP request's headers, lower-case names (as node:http gives them). */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  /** The origin the client reached the proxy at (artifact links point there). */
  origin?: string;
}

export interface SendOptions {
  /**
   * The request of the peer's this message belongs to (progress, a log message, a question asked during a call):
   * Streamable HTTP writes it on that request's own stream.
   */
  related?: Id;
  /** HTTP headers for this message (an upstream request's Mcp-Param-* headers). */
  headers?: Record<string, string>;
  /**
   * For a request: the server ended the request's stream before its answer, for the client to resume it (SSE
   * polling, SEP-1699), after `retryMs` when it said. The wire resumes it itself; a relay may let its own client do
   * the same (Wire.pause). `resume` reopens it now instead: a relay calls it when its own client has come back for
   * the request, since that client, talking to the server directly, would have reopened the stream at that moment.
   */
  onpause?: (retryMs: number | undefined, resume?: () => void) => void;
}

/**
 * A transport: bytes in and out, framing only. It turns what it reads into frames (`onframe`) and writes the frames
 * it is given; it knows nothing of MCP beyond what its framing needs (Streamable HTTP routes a response onto the
 * stream of the request it answers). The relay (src/relay/) does everything else.
 */
export interface Wire {
  onframe?: (frame: Frame, context?: FrameContext) => void;
  /** The other side is gone (end of stream, process exit, session deleted); called once. */
  onclose?: () => void;
  /** A problem worth a log line that ends nothing (a line that is not JSON, an oversized message). */
  onerror?: (error: Error) => void;
  /** Writes a frame; resolves once it is handed to the OS (backpressure), rejects when the wire is closed. */
  send(frame: Frame, options?: SendOptions): Promise<void>;
  /**
   * Ends the stream of the peer's unanswered request `related` for now, as a server that polls does (SEP-1699): the
   * peer resumes it and gets what was sent meanwhile. Only wires with resumable streams have it; it does nothing when
   * the stream cannot be resumed.
   */
  pause?(related: Id, retryMs: number | undefined, resume?: () => void): void;
  close(): Promise<void>;
}
