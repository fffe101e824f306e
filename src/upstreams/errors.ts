import { ProtocolError, SdkErrorCode } from '@modelcontextprotocol/server';

/**
 * An error sent to the client with exactly the code, message and data given.
 * (McpError prefixes its message with "MCP error <code>: ", which would change what the
 * upstream said on its way through the proxy.)
 */
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

/** The upstream's own words: McpError's message without the prefix the SDK added. */
export function originalMessage(error: ProtocolError): string {
  const prefix = `MCP error ${error.code}: `;
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}

export function unavailable(message: string): ClientError {
  return new ClientError(SdkErrorCode.ConnectionClosed, message);
}

export function timedOut(message: string): ClientError {
  return new ClientError(SdkErrorCode.RequestTimeout, message);
}

export function isMcpError(error: unknown): error is ProtocolError {
  return error instanceof ProtocolError;
}
