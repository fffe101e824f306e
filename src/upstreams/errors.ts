import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { wireErrorOf } from '../transports/wire-errors.js';

/**
 * The JSON-RPC codes the proxy has always sent for an upstream that is gone and one that did not
 * answer in time. (SDK v2 keeps these conditions local, as string SdkErrorCodes; clients still get
 * the numbers they got before.)
 */
export const CONNECTION_CLOSED = -32000;
export const REQUEST_TIMEOUT = -32001;

/** An error sent to the client with exactly the code, message and data given. */
export class ClientError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ClientError';
  }
}

/**
 * The error a peer answered a request with, as a ClientError carrying its code, message and data as
 * they were on the wire; undefined for errors that are not a peer's answer (a closed connection, a
 * timeout, a bug).
 */
export function relayedError(error: unknown): ClientError | undefined {
  const wire = wireErrorOf(error);
  return wire ? new ClientError(wire.code, wire.message, wire.data) : undefined;
}

/**
 * How an error of a request the proxy sent reaches the peer the proxy answers: a peer's error as it
 * was, a timeout and a closed connection with the codes they had in SDK v1; anything else as is.
 */
export function forwardedError(error: unknown): unknown {
  const relayed = relayedError(error);
  if (relayed) return relayed;
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
    return new ClientError(REQUEST_TIMEOUT, error.message, error.data);
  if (isConnectionClosed(error)) return new ClientError(CONNECTION_CLOSED, (error as SdkError).message);
  return error;
}

export function isConnectionClosed(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed;
}

export function unavailable(message: string): ClientError {
  return new ClientError(CONNECTION_CLOSED, message);
}

export function timedOut(message: string): ClientError {
  return new ClientError(REQUEST_TIMEOUT, message);
}

/** An error and what caused it, outermost first: at most `limit` links (a chain that loops ends there). */
export function* causeChain(error: unknown, limit: number): Generator<unknown> {
  for (let current = error, depth = 0; current && depth < limit; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}
