import type { ArtifactRecord } from '../artifacts/types.js';

/**
 * Every artifact is served as an inert document: a sandbox without scripts, plugins, forms or
 * same-origin rights, and no subresources. Styles and images inline only so text and images display.
 */
export const ARTIFACT_CSP = "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'; media-src 'self'";

/**
 * Types a browser shows in the tab without running anything. Everything else (HTML, SVG, XML,
 * scripts, PDF, unknown types) is served as an attachment: the browser saves it instead of
 * rendering it in our origin. PDF is here because Chrome's viewer refuses a sandboxed document.
 */
const INLINE_TYPES = [
  /^image\/(png|jpeg|gif|webp|avif|bmp)$/,
  /^audio\//,
  /^video\//,
  /^text\/plain$/,
  /^application\/json$/,
];

export function servedInline(mimeType: string): boolean {
  const essence = mimeType.split(';')[0]!.trim().toLowerCase();
  return INLINE_TYPES.some((pattern) => pattern.test(essence));
}

/** What the download is called: the upstream's filename when it gave one, else the stored name. */
export function downloadName(record: Pick<ArtifactRecord, 'filename' | 'id'>): string {
  const raw = record.filename || record.id.split('/').pop() || 'artifact';
  // The store sanitized it already; these are the characters that matter in a header, checked again.
  // eslint-disable-next-line no-control-regex
  const clean = raw.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069/\\]/g, '_').trim();
  return clean.replace(/^\.+/, '_') || 'artifact';
}

/**
 * RFC 6266: `filename` with an ASCII stand-in (quotes, backslashes and anything beyond ASCII
 * replaced) for old clients, `filename*` with the exact name in UTF-8 for the rest.
 */
export function contentDisposition(filename: string, inline: boolean): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
