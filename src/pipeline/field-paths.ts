import { createRequire } from 'node:module';
import type { JsonPath } from './json-docs.js';

// Loaded on first use of a `$` path, and kept: most configurations have none.
type JsonPathPlus = typeof import('jsonpath-plus');
let jsonPathPlus: JsonPathPlus | undefined;
const jsonPath = (): JsonPathPlus => (jsonPathPlus ??= createRequire(import.meta.url)('jsonpath-plus') as JsonPathPlus);

/**
 * Where a field rule's path points in a document: JSONPath when it starts with `$`, otherwise dot
 * notation (`result.files.0.content`, where a number indexes an array). Only paths that exist.
 */
export function resolveFieldPath(doc: unknown, path: string): JsonPath[] {
  if (path.startsWith('$')) {
    const pointers = jsonPath().JSONPath({
      path,
      json: doc as object,
      resultType: 'pointer',
      wrap: true,
      eval: 'safe',
    }) as string[];
    return pointers.map(fromPointer);
  }
  const segments: JsonPath = path.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  let node: unknown = doc;
  for (const segment of segments) {
    if (typeof node !== 'object' || node === null || !(segment in (node as object))) return [];
    node = (node as Record<string | number, unknown>)[segment];
  }
  return [segments];
}

function fromPointer(pointer: string): JsonPath {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}
