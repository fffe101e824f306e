import { page } from '../pagination.js';
import type { Catalog } from '../catalog.js';
import { Frame } from '../../wire/frame.js';
import type { Interceptor } from '../chain.js';
import type { RelayContext } from '../context.js';
import type { Session } from '../session.js';

type Key = keyof Catalog['snapshot'];

/** Each list method, the catalog's list it serves, and the proxy's own items with it (first or last). */
const LISTS = new Map<string, { key: Key; own: 'first' | 'last' }>([
  ['tools/list', { key: 'tools', own: 'first' }],
  ['prompts/list', { key: 'prompts', own: 'last' }],
  ['resources/list', { key: 'resources', own: 'last' }],
  ['resources/templates/list', { key: 'resourceTemplates', own: 'last' }],
]);

/**
 * The list methods, answered from the session's merged catalog (gateway/catalog.ts: every upstream's items, names
 * prefixed where servers are merged) and the proxy's own items (its tools first, the session's artifacts and the
 * artifact template after the upstreams' resources), in pages whose cursor is an offset into the merged list. A host
 * of MCP Apps (asked per request: a 2026-07-28 client declares itself with each) gets the tools as such a host is
 * shown them (relay/apps.ts), and the artifact viewer's tool and view.
 */
export function lists({ offload, config }: RelayContext): Interceptor {
  const own = (key: Key, session: Session, hostsApps: boolean): readonly unknown[] => {
    switch (key) {
      case 'tools':
        return offload.toolsFor(hostsApps);
      case 'resources': {
        const artifacts = offload.sessionResources(session);
        return hostsApps && offload.viewer ? [offload.viewer.resource, ...artifacts] : artifacts;
      }
      case 'resourceTemplates':
        return offload.templates;
      default:
        return [];
    }
  };
  return {
    name: 'lists',
    takes: (method, fromClient) => fromClient && LISTS.has(method),
    async request(call) {
      const list = LISTS.get(call.method)!;
      const session = call.session!;
      // A replica just started over a shared bucket lists the artifacts once it has read them all (store.ts init).
      if (list.key === 'resources') await offload.store.loaded();
      const { catalog } = session.view;
      const merged = list.key === 'tools' && call.hostsApps ? catalog.appHostTools : catalog.snapshot[list.key];
      const mine = own(list.key, session, call.hostsApps);
      const all = mine.length === 0 ? merged : list.own === 'first' ? [...mine, ...merged] : [...merged, ...mine];
      const { items, nextCursor } = page<unknown>(
        all,
        call.frame.blobs.restore(call.params.cursor),
        config.gateway.pageSize,
      );
      return Frame.result(call.received.id!, { [list.key]: items, ...(nextCursor ? { nextCursor } : {}) });
    },
  };
}
