/**
 * The ABP (Agentic Browser Protocol) binary shapes, found the way the ABP bridge's DataFlowManager finds
 * them: at the top of `data` and one level down, with the payload's sibling properties kept as metadata
 * (`{ document: BinaryData, pageCount: 12 }` → metadata `{ pageCount: 12 }`).
 */
import { defineOwn } from './define-own.js';
import { isBinaryMimeType } from '../../artifacts/mime.js';

export interface BinaryData {
  content: string;
  mimeType: string;
  /** Protocol values are 'base64' and 'utf-8'; other strings are passed on as sent. */
  encoding?: 'base64' | 'utf-8' | (string & {});
  size?: number;
  filename?: string;
}

export interface BinaryDataReferenceAuth {
  type: 'bearer' | 'query' | (string & {});
  token?: string;
  /** Header to carry a bearer token; `Authorization` when absent. */
  header?: string;
}

export interface BinaryDataReference {
  downloadUrl: string;
  mimeType: string;
  size?: number;
  filename?: string;
  expiresAt?: string;
  auth?: BinaryDataReferenceAuth;
}

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Absent, or of its protocol type. `null` is neither: the type guards promise `string | undefined`. */
function optional(v: unknown, type: 'string' | 'number'): boolean {
  return v === undefined || typeof v === type;
}

/**
 * BinaryData: string `content` and `mimeType`, and either a binary MIME type or `encoding: 'base64'` (a
 * text/html document sent as base64 is file data too, per the ABP data-flow rules). Optional fields, when
 * present, must have their protocol types, so the type guard does not lie about them.
 */
export function isBinaryData(v: unknown): v is BinaryData {
  if (!isObject(v) || typeof v.content !== 'string' || typeof v.mimeType !== 'string') return false;
  if (!optional(v.encoding, 'string') || !optional(v.size, 'number') || !optional(v.filename, 'string')) return false;
  return isBinaryMimeType(v.mimeType) || (typeof v.encoding === 'string' && v.encoding.toLowerCase() === 'base64');
}

/**
 * A text document declared as such: BinaryData's shape with `encoding: 'utf-8'` and any MIME type. The
 * data-flow rules leave it in the JSON; file mode asks for it (`declaredText`) so an HTML export is saved as
 * the `.html` file it is, not as a string inside a `.json` one.
 */
export function isDeclaredText(v: unknown): v is BinaryData {
  if (!isObject(v) || typeof v.content !== 'string' || typeof v.mimeType !== 'string') return false;
  if (!optional(v.size, 'number') || !optional(v.filename, 'string')) return false;
  return typeof v.encoding === 'string' && /^utf-?8$/i.test(v.encoding);
}

/**
 * BinaryDataReference: non-empty string `downloadUrl` and string `mimeType`. `size` is required by the
 * protocol but tolerated missing; `auth`, when present, must be an object with a string `type` (an
 * unsupported type is reported by the download, not silently treated as plain data).
 */
export function isBinaryDataReference(v: unknown): v is BinaryDataReference {
  if (!isObject(v) || typeof v.downloadUrl !== 'string' || v.downloadUrl === '' || typeof v.mimeType !== 'string') {
    return false;
  }
  if (!optional(v.size, 'number') || !optional(v.filename, 'string') || !optional(v.expiresAt, 'string')) return false;
  if (v.auth === undefined) return true;
  return (
    isObject(v.auth) &&
    typeof v.auth.type === 'string' &&
    optional(v.auth.token, 'string') &&
    optional(v.auth.header, 'string')
  );
}

export type AbpPayload =
  | { path: (string | number)[]; kind: 'binary'; value: BinaryData; metadata: Record<string, unknown> }
  | { path: (string | number)[]; kind: 'reference'; value: BinaryDataReference; metadata: Record<string, unknown> };

const BINARY_DATA_KEYS = new Set(['content', 'mimeType', 'encoding', 'size', 'filename']);
const REFERENCE_KEYS = new Set(['downloadUrl', 'mimeType', 'size', 'filename', 'expiresAt', 'auth']);

export interface FindOptions {
  /** Also take `{content, mimeType, encoding: 'utf-8'}` (see isDeclaredText). */
  declaredText?: boolean;
}

function asPayload(path: (string | number)[], value: unknown, options: FindOptions): AbpPayload | undefined {
  if (isBinaryData(value) || (options.declaredText && isDeclaredText(value)))
    return { path, kind: 'binary', value, metadata: {} };
  if (isBinaryDataReference(value)) return { path, kind: 'reference', value, metadata: {} };
  return undefined;
}

/**
 * BinaryData and BinaryDataReference objects in `data`, searched at the top and down to `depth` levels
 * (default 1, as the ABP bridge does). A nested payload's metadata is its parent object's other properties,
 * minus any that are payloads themselves (so one file's summary never inlines another's base64); a payload
 * at the top level gets its own extra properties (those outside the protocol shape) as metadata. Payloads
 * are not searched inside; arrays are searched but their elements have no metadata.
 */
export function findAbpPayloads(data: unknown, depth = 1, options: FindOptions = {}): AbpPayload[] {
  const top = asPayload([], data, options);
  if (top) {
    const known = top.kind === 'binary' ? BINARY_DATA_KEYS : REFERENCE_KEYS;
    for (const [key, value] of Object.entries(data as JsonObject))
      if (!known.has(key)) defineOwn(top.metadata, key, value);
    return [top];
  }

  const found: AbpPayload[] = [];
  // Level by level, so the order is the document's at each level.
  let level: Array<{ path: (string | number)[]; value: unknown }> = [{ path: [], value: data }];
  for (let d = 1; d <= depth && level.length > 0; d++) {
    const next: typeof level = [];
    for (const parent of level) {
      const entries: Array<[string | number, unknown]> = Array.isArray(parent.value)
        ? parent.value.map((v, i) => [i, v])
        : isObject(parent.value)
          ? Object.entries(parent.value)
          : [];
      const payloads = entries.map(([key, value]) => asPayload([...parent.path, key], value, options));
      entries.forEach(([key, value], i) => {
        const payload = payloads[i];
        if (!payload) {
          next.push({ path: [...parent.path, key], value });
          return;
        }
        if (!Array.isArray(parent.value)) {
          entries.forEach(([k, v], j) => payloads[j] === undefined && defineOwn(payload.metadata, String(k), v));
        }
        found.push(payload);
      });
    }
    level = next;
  }
  return found;
}
