import type { ReadResourceResult, Resource, ResourceTemplateType } from '@modelcontextprotocol/server';
import { isTextMimeType } from './mime.js';
import { humanSize } from './sizes.js';
import type { ArtifactStore } from './store.js';
import type { ArtifactRecord } from './types.js';

/** Above this size a resource says it is large, so clients think twice before reading it into context. */
const LARGE_BYTES = 1024 * 1024;

export const ARTIFACT_TEMPLATE: ResourceTemplateType = {
  uriTemplate: 'artifact://{+id}',
  name: 'artifact',
  title: 'Stored tool output',
  description: 'A binary or oversized tool result that mcp-offload stored instead of putting it in the context.',
};

/**
 * An artifact as an MCP resource, with the facts a client needs to decide whether to read it. `showPath` false (a
 * client over HTTP, elsewhere) leaves the gateway's file path out.
 */
export function artifactResource(record: ArtifactRecord, showPath = true): Resource {
  const tokens = isTextMimeType(record.mimeType) ? Math.ceil(record.size / 4) : undefined;
  return {
    uri: record.uri,
    name: record.filename ?? record.id.split('/').pop()!,
    title: `${record.tool} output (${record.server})`,
    description: `${record.mimeType}, ${humanSize(record.size)}, from ${record.server}/${record.tool} at ${record.created}${
      record.size > LARGE_BYTES ? '. Large: prefer artifact_read with a range or query over reading it whole.' : ''
    }`,
    mimeType: record.mimeType,
    size: record.size,
    annotations: { lastModified: record.created },
    _meta: {
      ...(showPath ? { path: record.path } : {}),
      sha256: record.sha256,
      largeFile: record.size > LARGE_BYTES,
      ...(tokens !== undefined ? { estimatedTokens: tokens } : {}),
    },
  };
}

/** The exact bytes: as text for textual types (when they are valid UTF-8), as a base64 blob otherwise. */
export async function readArtifact(store: ArtifactStore, record: ArtifactRecord): Promise<ReadResourceResult> {
  const bytes = await store.read(record.id);
  const base = { uri: record.uri, mimeType: record.mimeType };
  const text = isTextMimeType(record.mimeType) ? utf8(bytes) : undefined;
  return { contents: [text !== undefined ? { ...base, text } : { ...base, blob: bytes.toString('base64') }] };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of valid UTF-8 bytes; undefined when decoding would change them. */
export function utf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
