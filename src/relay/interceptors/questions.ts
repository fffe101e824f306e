import { unsupportedByClient } from '../client-capabilities.js';
import type { Interceptor } from '../chain.js';
import type { RelayContext } from '../context.js';
import { Codes, RpcError } from '../../rpc/errors.js';

/**
 * An upstream's question (sampling, elicitation, roots) goes to the client routing found for it only when that
 * client can answer it: a 2025 client that has finished its handshake (MCP lets a server ask only after
 * `initialized`) and declared the capability the question needs. A 2026-07-28 client is asked only within one of
 * its calls (eras.ts); outside one, the upstream is told why not.
 */
export function questions(_context: RelayContext): Interceptor {
  return {
    name: 'questions',
    takes: (_method, fromClient) => !fromClient,
    async request(call, next) {
      const session = call.session;
      const upstream = call.upstream!;
      if (!session) return next(call);
      if (session.era === 'modern') {
        throw new RpcError(
          Codes.InvalidRequest,
          `mcp-offload cannot pass ${call.method} from upstream "${upstream.name}" on to its MCP client: the client speaks MCP 2026-07-28, ` +
            `where a server asks the client something only within a call, and no call of that client is in flight on this connection`,
        );
      }
      await session.handshake(call.cancellation);
      if (call.cancellation.aborted || session.isClosed)
        throw new RpcError(Codes.ConnectionClosed, `the MCP client went away before ${call.method} could be asked`);
      const unsupported = unsupportedByClient(session.clientCapabilities, call.method, call.params, upstream.name);
      if (unsupported) throw unsupported;
      return next(call);
    },
  };
}
