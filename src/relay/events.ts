import type { Result } from '@modelcontextprotocol/server';
import type { ArtifactRecord, GcResult } from '../artifacts/types.js';
import { ARTIFACT_URI_PREFIX } from '../artifacts/metadata.js';
import { ARTIFACTS_META_KEY } from '../pipeline/pipeline.js';

/** Who made a request: the token's name (when the gateway checks tokens) and the session. */
export interface Who {
  token?: string;
  session: string;
}

export type CallOutcome = 'ok' | 'error' | 'failed';

/** A finished tools/call. `artifacts` are the payloads it stored (from the result's `_meta`). */
export interface CallEvent {
  who: Who;
  server: string;
  tool: string;
  outcome: CallOutcome;
  seconds: number;
  artifacts: Array<{ id: string; size: number; mimeType: string }>;
  /** Bytes of the answer as the upstream sent it (0 when no upstream answered: a failure, the proxy's own tools). */
  upstreamBytes: number;
  /** Bytes of the answer the client got, after the pipeline. */
  clientBytes: number;
}

/** Bytes of an artifact handed to someone: over MCP or as an HTTP download. */
export interface ArtifactReadEvent {
  who: Who | { link: true };
  via: 'resources/read' | 'artifact_read' | 'download';
  record: Pick<ArtifactRecord, 'id' | 'size' | 'mimeType'>;
  /** Bytes actually sent (a range may send fewer). */
  bytes: number;
}

interface EventMap {
  call: CallEvent;
  artifactRead: ArtifactReadEvent;
  collected: GcResult;
}

type Listener<T> = (event: T) => void;

/**
 * What the gateway reports to whoever watches it (metrics, the audit log). A listener that throws is
 * ignored: watching must never break a call.
 */
export class GatewayEvents {
  private readonly listeners: { [K in keyof EventMap]?: Array<Listener<EventMap[K]>> } = {};

  on<K extends keyof EventMap>(name: K, listener: Listener<EventMap[K]>): () => void {
    const list = (this.listeners[name] ??= []) as Array<Listener<EventMap[K]>>;
    list.push(listener);
    return () => list.splice(list.indexOf(listener) >>> 0, 1);
  }

  /** Whether anyone watches `name`: an event nobody hears need not be built. */
  heard(name: keyof EventMap): boolean {
    return (this.listeners[name]?.length ?? 0) > 0;
  }

  emit<K extends keyof EventMap>(name: K, event: EventMap[K]): void {
    for (const listener of (this.listeners[name] ?? []) as Array<Listener<EventMap[K]>>) {
      try {
        listener(event);
      } catch {
        // See the class comment.
      }
    }
  }
}

/** The artifacts a processed result announces in `_meta` (see pipeline.ts). */
export function artifactsOf(result: Result | undefined): CallEvent['artifacts'] {
  const listed = result?._meta?.[ARTIFACTS_META_KEY];
  if (!Array.isArray(listed)) return [];
  return listed.map((a: { uri: string; size: number; mimeType: string }) => ({
    id: a.uri.startsWith(ARTIFACT_URI_PREFIX) ? a.uri.slice(ARTIFACT_URI_PREFIX.length) : a.uri,
    size: a.size,
    mimeType: a.mimeType,
  }));
}
