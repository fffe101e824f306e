import type { JSONRPCMessage } from '@modelcontextprotocol/client';

/** A JSON-RPC error exactly as a peer sent it. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

/** Carries a wire error through the SDK in place of its data (see carryWireError). */
class WireErrorCarrier {
  constructor(readonly wire: WireError) {}
}

/**
 * Keeps an error a peer answered a request with as it was on the wire: a transport decorator's inbound hook
 * on every connection the proxy relays through.
 *
 * SDK v2 rebuilds a received error into typed classes that change what a relay passes on: -32002
 * with a `uri` becomes -32602, and the typed classes keep only the `data` members they know. With
 * the error's data replaced by a carrier that no typed class matches, the SDK raises a plain error
 * holding the carrier, and wireErrorOf() finds the original in it.
 */
export function carryWireError(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message) || message.error === null || typeof message.error !== 'object') return message;
  const { code, message: text, data } = message.error;
  const wire: WireError = { code, message: text, ...(data !== undefined ? { data } : {}) };
  return { ...message, error: { code, message: text, data: new WireErrorCarrier(wire) } };
}

/** The wire error a request was answered with, if `error` is one that carryWireError carried. */
export function wireErrorOf(error: unknown): WireError | undefined {
  const data = error instanceof Error ? (error as { data?: unknown }).data : undefined;
  return data instanceof WireErrorCarrier ? data.wire : undefined;
}
