import { createRequire } from 'node:module';

// Both loaded on first use, and kept: mime-types parses its whole database (about 6 MB of memory) and file-type
// comes with its parsers, while an idle proxy, and most results, need neither. The table below answers the common
// types without the database.
type MimeTypes = typeof import('mime-types');
let mimeTypes: MimeTypes | undefined;
const mime = (): MimeTypes => (mimeTypes ??= createRequire(import.meta.url)('mime-types') as MimeTypes);
let fileTypes: Promise<typeof import('file-type')> | undefined;
const fileType = () => (fileTypes ??= import('file-type'));

/**
 * The seed's MIME → extension table (abp-data-flow) plus the common aliases upstreams send. It wins
 * over mime-types, whose first extension is sometimes surprising (audio/mpeg → `mpga`, audio/ogg → `oga`).
 */
const EXTENSIONS: Record<string, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/ogg': 'ogg',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'application/zip': 'zip',
  'application/json': 'json',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/csv': 'csv',
  'text/markdown': 'md',
  'application/gzip': 'gz',
};

/** Non-standard spellings seen in the wild, mapped to the registered type so comparisons and the table work. */
const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
  'audio/mp3': 'audio/mpeg',
  'audio/x-mp3': 'audio/mpeg',
  'audio/x-mpeg': 'audio/mpeg',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'application/x-zip-compressed': 'application/zip',
  'application/x-zip': 'application/zip',
  'application/x-gzip': 'application/gzip',
  'application/x-pdf': 'application/pdf',
};

const GENERIC = new Set([
  'application/octet-stream',
  'binary/octet-stream',
  'application/x-binary',
  'application/unknown',
]);

/**
 * Formats other formats are built on. A specific `application/*` declaration over one of these is a
 * refinement (an .xlsm or .jar is a zip, an old .doc is a CFB), not a contradiction.
 */
const CONTAINERS = new Set(['application/zip', 'application/x-cfb']);

/** `Text/Plain; charset=utf-8` → `text/plain`, with aliases resolved; '' for a missing or empty type. */
export function essence(mimeType: string | undefined): string {
  const bare = (mimeType ?? '').split(';')[0]!.trim().toLowerCase();
  return ALIASES[bare] ?? bare;
}

export function extensionFor(mimeType: string): string {
  const type = essence(mimeType);
  const ext = EXTENSIONS[type] ?? mime().extension(type);
  // The extension ends up in a file name; anything but a short alphanumeric word is not worth the risk.
  return typeof ext === 'string' && /^[a-z0-9]{1,16}$/.test(ext) ? ext : 'bin';
}

export function mimeTypeForFilename(name: string): string | undefined {
  const type = mime().lookup(name);
  return type === false ? undefined : type;
}

export function isGenericMimeType(mimeType: string | undefined): boolean {
  const type = essence(mimeType);
  return type === '' || GENERIC.has(type);
}

// application/* types whose bytes are text; text/*, +json and +xml are caught by rule.
const TEXTUAL_APPLICATION_TYPES = new Set([
  'application/json',
  'application/ld+json',
  'application/x-ndjson',
  'application/jsonl',
  'application/xml',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/sql',
  'application/graphql',
  'application/x-www-form-urlencoded',
  'application/x-sh',
  'application/csv',
]);

/**
 * Text a model can read: text/*, JSON, XML, JavaScript, YAML and their structured-suffix relatives.
 * Such declarations are believed without looking at the bytes: text cannot be sniffed reliably.
 */
export function isTextMimeType(mimeType: string | undefined): boolean {
  const type = essence(mimeType);
  return (
    type.startsWith('text/') || type.endsWith('+json') || type.endsWith('+xml') || TEXTUAL_APPLICATION_TYPES.has(type)
  );
}

/**
 * A well-formed `type/subtype` that is not text. A missing or malformed type is not called binary:
 * deciding to base64-decode a string needs positive evidence.
 */
export function isBinaryMimeType(mimeType: string | undefined): boolean {
  const type = essence(mimeType);
  const slash = type.indexOf('/');
  return slash > 0 && slash < type.length - 1 && !isTextMimeType(type);
}

const SVG_WINDOW = 4096;

/**
 * Whether text starts like an SVG document: the root element `<svg`, after an optional BOM, XML
 * declaration, processing instructions, comments and doctype. A scanner rather than one regular
 * expression: the obvious regex backtracks exponentially on a run of comments that never reaches `<svg`.
 */
export function looksLikeSvg(bytes: Uint8Array): boolean {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, SVG_WINDOW)).toString('utf8');
  // Index just past `token` searched from `from`, or -1: an unterminated construct is not SVG.
  const past = (token: string, from: number): number => {
    const at = text.indexOf(token, from);
    return at < 0 ? -1 : at + token.length;
  };
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text.startsWith('<?', i)) {
      i = past('?>', i + 2);
    } else if (text.startsWith('<!--', i)) {
      i = past('-->', i + 4);
    } else if (text.slice(i, i + 9).toUpperCase() === '<!DOCTYPE') {
      const close = past('>', i);
      // An internal subset (`[ ... ]`) may itself contain `>`.
      const subset = close < 0 ? -1 : text.slice(i, close).indexOf('[');
      const subsetEnd = subset < 0 ? -1 : past(']', i + subset);
      i = subset < 0 ? close : subsetEnd < 0 ? -1 : past('>', subsetEnd);
    } else {
      return /^<svg[\s>/]/i.test(text.slice(i, i + 5));
    }
    if (i < 0) return false;
  }
}

/**
 * The type the bytes say they are, by magic numbers. The whole buffer is handed to file-type rather
 * than a 64 KiB head: telling docx/xlsx/pptx from a plain zip needs the entries further into the
 * archive, and file-type bounds its own reads (entry count and size limits), so big payloads cost
 * no more than the entries it inspects.
 */
export async function sniff(bytes: Uint8Array): Promise<{ mimeType: string; ext: string } | undefined> {
  return sniffWith(bytes, async () => (await fileType()).fileTypeFromBuffer(bytes));
}

/**
 * `sniff` of a file known by its path, its size and its first bytes (at least 4 KiB, if it has them): file-type
 * reads what it needs from the file, as much as it would from a buffer of all of it. A file the head holds whole, as
 * most are, is sniffed from the head: the same answer without opening the file again.
 */
export async function sniffFile(
  path: string,
  head: Uint8Array,
  size: number,
): Promise<{ mimeType: string; ext: string } | undefined> {
  if (size <= head.length) return sniff(head.subarray(0, size));
  return sniffWith(head, async () => (await fileType()).fileTypeFromFile(path));
}

async function sniffWith(
  head: Uint8Array,
  detect: () => Promise<{ mime: string; ext: string } | undefined>,
): Promise<{ mimeType: string; ext: string } | undefined> {
  // Before file-type, which calls every XML document `application/xml`.
  if (looksLikeSvg(head)) return { mimeType: 'image/svg+xml', ext: 'svg' };
  let found: { mime: string; ext: string } | undefined;
  try {
    found = await detect();
  } catch {
    // A malformed container can make the parser throw; that is "unknown", not a failure to store.
    return undefined;
  }
  if (!found) return undefined;
  const mimeType = essence(found.mime);
  return { mimeType, ext: EXTENSIONS[mimeType] ?? found.ext };
}

function isAudioVisual(type: string): boolean {
  return type.startsWith('audio/') || type.startsWith('video/') || type === 'application/ogg';
}

/**
 * The type recorded for a payload. The declaration is kept unless it is missing, generic, or names a
 * binary format the bytes plainly are not (an upstream labeling a PDF `image/png` would otherwise
 * hand the client an undecodable image). Text declarations are trusted: text has no magic number.
 * The result is the bare type (no parameters), with non-standard aliases like image/jpg normalized.
 */
export async function resolveMimeType(declared: string | undefined, bytes: Uint8Array): Promise<string> {
  return resolveWith(declared, () => sniff(bytes));
}

/** `resolveMimeType` for bytes written to a file (`sniffFile`). */
export async function resolveMimeTypeOfFile(
  declared: string | undefined,
  file: { path: string; head: Uint8Array; size: number },
): Promise<string> {
  return resolveWith(declared, () => sniffFile(file.path, file.head, file.size));
}

async function resolveWith(
  declared: string | undefined,
  sniffed: () => Promise<{ mimeType: string } | undefined>,
): Promise<string> {
  const type = essence(declared);
  if (!isGenericMimeType(type) && isTextMimeType(type)) return type;
  const found = await sniffed();
  if (isGenericMimeType(type)) return found?.mimeType ?? 'application/octet-stream';
  if (!found || found.mimeType === type) return type;
  // Where the sniffed type is only the container or the codec family, the declaration is more precise.
  if (CONTAINERS.has(found.mimeType) && type.startsWith('application/') && !CONTAINERS.has(type)) return type;
  if (isAudioVisual(type) && isAudioVisual(found.mimeType)) return type;
  return found.mimeType;
}

/**
 * The extension for a stored file. The upstream's own extension is kept when it names the same type
 * (`photo.jpeg` stays `.jpeg`, `data.tsv` stays `.tsv`), otherwise the type decides: a name alone
 * never chooses how a file will be opened.
 */
export function extensionForFile(mimeType: string, filename?: string): string {
  const dot = filename ? filename.lastIndexOf('.') : -1;
  if (filename && dot > 0) {
    const ext = filename.slice(dot + 1).toLowerCase();
    if (/^[a-z0-9]{1,16}$/.test(ext) && essence(mimeTypeForFilename(filename)) === essence(mimeType)) return ext;
  }
  return extensionFor(mimeType);
}
