import { VIEWER_URI, type ArtifactViewer as Viewer } from '../../artifacts/viewer.js';
import { Frame } from '../../wire/frame.js';
import { numbersAsDoubles } from '../../wire/json.js';
import type { Call } from '../call.js';
import type { Interceptor } from '../chain.js';
import type { RelayContext } from '../context.js';
import { isOurArtifact } from './routing.js';
import { textIn } from '../param-text.js';

/** The `server` label of the proxy's own tools in metrics and the audit log. */
export const BUILTIN_SERVER = 'mcp-offload';

/**
 * The proxy's own tools (artifact_read and its siblings: artifacts/tools.ts) and its artifact:// resources, answered
 * here for the session that asks: it reads only what it owns. For a host of MCP Apps, the artifact viewer's tool and
 * view (artifacts/viewer.ts) too; for any other client those names are nobody's, as they were.
 */
export function artifacts({ offload }: RelayContext): Interceptor {
  return {
    name: 'artifacts',
    takes: (method, fromClient) => fromClient && (method === 'tools/call' || method === 'resources/read'),
    request(call, next) {
      const session = call.session!;
      const viewer = call.hostsApps ? offload.viewer : undefined;
      if (call.method === 'tools/call') {
        const name = call.params.name;
        if (typeof name !== 'string') return next(call);
        const viewing = viewer !== undefined && name === viewer.name;
        if (!viewing && !offload.isBuiltin(name)) return next(call);
        return ownTool(call, name, viewing ? viewer : undefined);
      }
      if (call.method === 'resources/read') {
        const uri = textIn(call.frame, call.params.uri);
        const viewing = viewer !== undefined && uri === VIEWER_URI && !session.view.catalog.resourceOwner(uri);
        if (!viewing && !isOurArtifact(session.view, uri)) return next(call);
        return ownResource(call, uri, viewing ? viewer : undefined);
      }
      return next(call);
    },
  };

  /** A call of the proxy's own tools (the viewer's, when `viewer` is given). */
  async function ownTool(call: Call, name: string, viewer: Viewer | undefined): Promise<Frame> {
    const session = call.session!;
    call.report = { server: BUILTIN_SERVER, tool: name };
    // The proxy's own tools read the arguments as values, long literals the stdio reader kept aside included.
    const args = numbersAsDoubles((call.frame.blobs.restore(call.params.arguments) ?? {}) as Record<string, unknown>);
    const result = viewer
      ? await viewer.view(offload.store, session.owner, args)
      : await offload.callBuiltin(name, args, session);
    return Frame.result(call.received.id!, result as unknown as Record<string, unknown>);
  }

  /** A read of an artifact:// resource (or of the viewer's view, when `viewer` is given). */
  async function ownResource(call: Call, uri: string, viewer: Viewer | undefined): Promise<Frame> {
    if (viewer) return Frame.result(call.received.id!, (await viewer.read()) as unknown as Record<string, unknown>);
    const result = await offload.read(uri, call.session!);
    return Frame.result(call.received.id!, result as unknown as Record<string, unknown>);
  }
}
