import type { CallToolResult } from '@modelcontextprotocol/client';

/** One artifact to show: what artifact_view hands the view, or what a result's `_meta` lists. */
export interface Shown {
  uri: string;
  name: string;
  mimeType: string;
  size: number;
  facts?: Record<string, unknown>;
}

/** Where the proxy lists the artifacts a result stored (src/pipeline/pipeline.ts). */
const ARTIFACTS_META_KEY = 'mcp-offload/artifacts';

/**
 * The artifacts a tool result asks the view to show: artifact_view's `structuredContent.artifacts`, or, for a tool
 * the proxy links to the viewer, the artifacts its pipeline stored from the result (`_meta["mcp-offload/artifacts"]`).
 */
export function artifactsOf(result: CallToolResult): Shown[] {
  const structured = result.structuredContent as { artifacts?: unknown } | undefined;
  if (Array.isArray(structured?.artifacts)) return structured.artifacts.flatMap(shown);
  const stored = result._meta?.[ARTIFACTS_META_KEY];
  return Array.isArray(stored) ? stored.flatMap(shown) : [];
}

function shown(item: unknown): Shown[] {
  if (item === null || typeof item !== 'object') return [];
  const { uri, name, mimeType, size, facts } = item as Record<string, unknown>;
  if (typeof uri !== 'string' || !uri.startsWith('artifact://')) return [];
  return [
    {
      uri,
      name: typeof name === 'string' ? name : uri.slice(uri.lastIndexOf('/') + 1),
      mimeType: typeof mimeType === 'string' ? mimeType : 'application/octet-stream',
      size: typeof size === 'number' ? size : 0,
      ...(facts !== null && typeof facts === 'object' ? { facts: facts as Record<string, unknown> } : {}),
    },
  ];
}

/** Which view shows a type. */
export type Kind = 'image' | 'pdf' | 'json' | 'text' | 'none';

export function kindOf(artifact: Shown): Kind {
  const type = artifact.mimeType.split(';')[0]!.trim().toLowerCase();
  if (type.startsWith('image/')) return 'image';
  if (type === 'application/pdf') return 'pdf';
  if (type === 'application/json' || type.endsWith('+json') || artifact.name.endsWith('.json')) return 'json';
  if (type.startsWith('text/') || /\b(xml|javascript|yaml|toml|csv|x-sh|sql)\b/.test(type)) return 'text';
  return 'none';
}
