import type { JSONVisitor } from 'jsonc-parser';
import type { JsonPath, LiteralRange } from './json-text.js';

let parser: Promise<typeof import('jsonc-parser')> | undefined;

/**
 * One scan of a JSON text's tokens. jsonc-parser is loaded on the first: only texts with escaped or repeated
 * literals, or with references to put back, need one, and most proxies never read one.
 */
async function visit(text: string, visitor: JSONVisitor): Promise<void> {
  const { visit: scan } = await (parser ??= import('jsonc-parser'));
  scan(text, visitor);
}

/**
 * Where the string literals at `paths` stand in a JSON text, found by one scan of its tokens (jsonc-parser):
 * for values written with escapes, or written more than once, that a search for the value cannot place.
 */
export async function locateStrings(text: string, paths: readonly JsonPath[]): Promise<Map<string, LiteralRange>> {
  const wanted = new Set(paths.map(pathKey));
  const found = new Map<string, LiteralRange>();
  await visit(text, {
    onLiteralValue: (
      value: unknown,
      offset: number,
      length: number,
      _line: number,
      _column: number,
      pathOf: () => JsonPath,
    ) => {
      if (typeof value !== 'string') return;
      const key = pathKey(pathOf());
      if (wanted.has(key)) found.set(key, { start: offset, end: offset + length });
    },
  });
  return found;
}

export function pathKey(path: readonly (string | number)[]): string {
  return JSON.stringify(path);
}

/** A flat object in a JSON text holding an `$artifact` key: where it stands, and what it says. */
export interface ReferenceInText extends LiteralRange {
  uri: string;
}

/** Keys the proxy writes in a reference; an object with any other key is not one of ours. */
const REFERENCE_KEYS = new Set(['$artifact', 'path', 'url', 'mimeType', 'size']);

/**
 * The reference objects (`{"$artifact": "artifact://…", …}`) in a JSON text, however they were
 * reformatted (spaces, line breaks, key order), for putting back what they stand for.
 */
export async function findReferences(text: string): Promise<ReferenceInText[]> {
  const found: ReferenceInText[] = [];
  const stack: { start: number; keys: string[]; uri?: string; flat: boolean }[] = [];
  await visit(text, {
    onObjectBegin: (offset: number) => {
      if (stack.length) stack[stack.length - 1]!.flat = false;
      stack.push({ start: offset, keys: [], flat: true });
    },
    onObjectProperty: (property: string) => stack[stack.length - 1]?.keys.push(property),
    onArrayBegin: () => {
      if (stack.length) stack[stack.length - 1]!.flat = false;
    },
    onLiteralValue: (
      value: unknown,
      _offset: number,
      _length: number,
      _line: number,
      _column: number,
      pathOf: () => JsonPath,
    ) => {
      const top = stack[stack.length - 1];
      if (top && typeof value === 'string' && pathOf().at(-1) === '$artifact') top.uri = value;
    },
    onObjectEnd: (offset: number, length: number) => {
      const object = stack.pop();
      if (!object || object.uri === undefined || !object.flat) return;
      if (object.keys.every((key) => REFERENCE_KEYS.has(key)))
        found.push({ start: object.start, end: offset + length, uri: object.uri });
    },
  });
  return found;
}
