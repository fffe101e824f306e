import type {
  Server,
  Implementation,
  InitializeRequest,
  InitializeResult,
  ServerCapabilities,
} from '@modelcontextprotocol/server';
import { LEGACY_PROTOCOL_VERSIONS } from '../protocol/versions.js';

/** What the proxy answers a client's `initialize` with, once the upstreams that serve the client have answered. */
export interface InitializeAnswer {
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  instructions?: string;
  /** The version the upstream agreed to; absent, the SDK's choice (the client's, when supported). */
  protocolVersion?: string;
}

/** The parts of the SDK's Server (v2.4) this module reaches into; see answerInitialize. */
interface ServerInternals {
  _oninitialize(request: InitializeRequest): Promise<InitializeResult>;
  _capabilities: ServerCapabilities;
  _serverInfo: Implementation;
  _instructions?: string;
}

/**
 * Takes over `initialize` in the SDK's Server: the client is answered only after `answer` has started the upstreams
 * as that client, with what they answered.
 *
 * SDK trick, kept to this function: the Server answers `initialize` itself from what it was constructed with, and
 * its own handler is what records the client's capabilities and info (private fields), so that handler still runs
 * first, and the answer's capabilities become the Server's, which it checks the notifications it sends against.
 */
export function answerInitialize(
  server: Server,
  answer: (params: InitializeRequest['params']) => Promise<InitializeAnswer>,
): void {
  const internals = server as unknown as ServerInternals;
  server.setRequestHandler('initialize', async (request) => {
    const sdkAnswer = await internals._oninitialize(request);
    const ours = await answer(request.params);
    internals._capabilities = ours.capabilities;
    internals._serverInfo = ours.serverInfo;
    internals._instructions = ours.instructions;
    const agreed = ours.protocolVersion;
    return {
      protocolVersion:
        agreed !== undefined && LEGACY_PROTOCOL_VERSIONS.includes(agreed) ? agreed : sdkAnswer.protocolVersion,
      capabilities: ours.capabilities,
      serverInfo: ours.serverInfo,
      ...(ours.instructions !== undefined ? { instructions: ours.instructions } : {}),
    };
  });
}
