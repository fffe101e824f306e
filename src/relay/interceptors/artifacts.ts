import { Frame } from '../../wire/frame.js';
import { numbersAsDoubles } from '../../wire/json.js';
import type { Interceptor } from '../chain.js';
import type { RelayContext } from '../context.js';
import { isOurArtifact } from './routing.js';
import { textIn } from '../param-text.js';

/** The `server` label of the proxy's own tools in metrics and the audit log. */
export const BUILTIN_SERVER = 'mcp-offload';

/**
 * The proxy's own tools (artifact_read and its siblings: artifacts/tools.ts) and its artifact:// resources, answered
 * here for the session that asks: it reads only what it owns.
 */
export function artifacts({ offload }: RelayContext): Interceptor {
  return {
    name: 'artifacts',
    takes: (method, fromClient) => fromClient && (method === 'tools/call' || method === 'resources/read'),
    async request(call, next) {
      const session = call.session!;
      if (call.method === 'tools/call') {
        const name = call.params.name;
        if (typeof name !== 'string' || !offload.isBuiltin(name)) return next(call);
        call.report = { server: BUILTIN_SERVER, tool: name };
        // The proxy's own tools read the arguments as values, long literals the stdio reader kept aside included.
        const args = numbersAsDoubles(
          (call.frame.blobs.restore(call.params.arguments) ?? {}) as Record<string, unknown>,
        );
        const result = await offload.callBuiltin(name, args, session);
        return Frame.result(call.received.id!, result as unknown as Record<string, unknown>);
      }
      if (call.method === 'resources/read') {
        const uri = textIn(call.frame, call.params.uri);
        if (!isOurArtifact(session.view, uri)) return next(call);
        const result = await offload.read(uri, session);
        return Frame.result(call.received.id!, result as unknown as Record<string, unknown>);
      }
      return next(call);
    },
  };
}
