import type { InitializeRequest } from '@modelcontextprotocol/server';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';

/** The SDK's web-standard transport inside the Node one: the handshake is replayed to it without a socket. */
interface WebTransport {
  handleRequest(request: Request, options?: { parsedBody?: unknown }): Promise<Response>;
}

const REPLAY_URL = 'http://mcp-offload.invalid/mcp';

/**
 * Recreates a session another replica held (src/shared/session-directory.ts) on a fresh transport: the client's own
 * `initialize` and `initialized` are replayed to it, so the SDK's Server and the gateway go through the handshake as
 * they did for the client (its capabilities, version and era, and the upstream connections opened for it), and the
 * transport takes the session's id. The answers go nowhere: the client has had them from the first replica.
 */
export async function replayHandshake(
  transport: NodeStreamableHTTPServerTransport,
  sessionId: string,
  init: InitializeRequest['params'] | null,
): Promise<void> {
  if (!init) throw new Error('the session has no initialize to replay');
  const web = (transport as unknown as { _webStandardTransport: WebTransport })._webStandardTransport;
  const initialize = { jsonrpc: '2.0', id: 'mcp-offload-adopt', method: 'initialize', params: init };
  const answer = await web.handleRequest(post(JSON.stringify(initialize), {}), { parsedBody: initialize });
  const text = await answer.text();
  if (answer.status !== 200 || !text.includes('"result"')) {
    throw new Error(`the session's initialize was refused on replay (${answer.status}): ${text.slice(0, 300)}`);
  }
  const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
  const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': negotiatedVersion(text, init) };
  const done = await web.handleRequest(post(JSON.stringify(initialized), headers), { parsedBody: initialized });
  await done.text();
  if (done.status !== 202)
    throw new Error(`the session's initialized notification was refused on replay (${done.status})`);
}

function post(body: string, headers: Record<string, string>): Request {
  return new Request(REPLAY_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });
}

/** The version the replayed initialize settled on (an SSE or JSON answer), else the one the client asked for. */
function negotiatedVersion(answer: string, init: InitializeRequest['params']): string {
  return /"protocolVersion"\s*:\s*"([^"]+)"/.exec(answer)?.[1] ?? init.protocolVersion;
}
