import type { RpcError as WireError } from '../wire/frame.js';

/** JSON-RPC error codes the relay answers with itself. */
export const Codes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** An upstream that is gone or not available (the code SDK v1 used; clients still get it). */
  ConnectionClosed: -32000,
  /** An upstream that did not answer in time. */
  RequestTimeout: -32001,
  /** 2026-07-28: the request's headers and body disagree. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability its envelope lacks. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the request's protocol version is not served. */
  UnsupportedProtocolVersion: -32022,
} as const;

/** An error the relay answers a request with: exactly this code, message and data. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }

  /** The error member of a JSON-RPC error response. */
  toWire(): WireError {
    return { code: this.code, message: this.message, ...(this.data !== undefined ? { data: this.data } : {}) };
  }
}

export function unavailable(message: string): RpcError {
  return new RpcError(Codes.ConnectionClosed, message);
}

export function timedOut(message: string): RpcError {
  return new RpcError(Codes.RequestTimeout, message);
}

/** The connection a request went out on closed before its answer came. */
export class ConnectionClosedError extends Error {
  constructor(message = 'the connection closed') {
    super(message);
    this.name = 'ConnectionClosedError';
  }
}

/** A request the proxy sent was cancelled (by the peer that asked for it, or a timeout) before it was answered. */
export class CancelledError extends Error {
  constructor(readonly reason: unknown) {
    super(typeof reason === 'string' ? reason : 'cancelled');
    this.name = 'CancelledError';
  }
}

/** A request this side sent was not answered within its timeout (it was cancelled at the peer). */
export class TimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/** An error as the peer that asked should get it: an RpcError as it is, anything else as an internal error. */
export function asRpcError(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof ConnectionClosedError) return new RpcError(Codes.ConnectionClosed, error.message);
  if (error instanceof TimeoutError) return new RpcError(Codes.RequestTimeout, `the request ${error.message}`);
  const message = error instanceof Error ? error.message : String(error);
  return new RpcError(Codes.InternalError, message);
}

/** An error and what caused it, outermost first: at most `limit` links (a chain that loops ends there). */
export function* causeChain(error: unknown, limit: number): Generator<unknown> {
  for (let current = error, depth = 0; current && depth < limit; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}
