import type { Extraction } from './types.js';

/** What replaces an extracted field inside JSON: small, and enough to find the file. */
export interface ArtifactReference {
  $artifact: string;
  /** The file on the gateway's disk; left out over HTTP unless `artifacts.links.showPath`. */
  path?: string;
  /** A signed download link, over HTTP. */
  url?: string;
  mimeType: string;
  size: number;
}

export function referenceTo({ record, link }: Extraction): ArtifactReference {
  return {
    $artifact: record.uri,
    ...(link?.hidePath ? {} : { path: record.path }),
    ...(link ? { url: link.url } : {}),
    mimeType: record.mimeType,
    size: record.size,
  };
}

/** The JSON Schema of a reference, for output schemas that must accept one in place of a field. */
export const REFERENCE_SCHEMA = {
  type: 'object',
  description: 'mcp-offload stored this value as a file; read it with resources/read or artifact_read.',
  properties: {
    $artifact: { type: 'string', description: 'artifact:// URI of the stored value' },
    path: { type: 'string' },
    url: { type: 'string' },
    mimeType: { type: 'string' },
    size: { type: 'integer' },
  },
  required: ['$artifact'],
} as const;

export function isReference(value: unknown): value is ArtifactReference {
  return (
    typeof value === 'object' && value !== null && typeof (value as { $artifact?: unknown }).$artifact === 'string'
  );
}
