import type { ContentBlock, TextContent } from '@modelcontextprotocol/server';
import {
  findAbpPayloads,
  isBinaryData,
  isBinaryDataReference,
  type BinaryDataReference,
} from '../detect/abp-shapes.js';
import { abpAppOrigins } from '../detect/abp-origins.js';
import { detectBase64Binary } from '../detect/base64.js';
import { canonicalEncoding, decodeBase64Strict, mightBeBase64, promisedBytes } from '../../codec/base64.js';
import { formIn } from '../../artifacts/literals.js';
import { findDataUris, replaceRanges } from '../detect/data-uri.js';
import { base64Data } from '../payload-data.js';
import { markLiteralChecked } from '../json-text.js';
import {
  announce,
  failureText,
  isNote,
  mapContent,
  note,
  originalText,
  placeOutcome,
  rewrittenText,
  standInNote,
} from '../blocks.js';
import { findStringsDeep, pathText, setAtPath } from '../detect/walk.js';
import {
  extractInto,
  parseJsonText,
  rewriteJsonDocuments,
  siblingMetadata,
  SKIP,
  walkJson,
  type DocRewrite,
  type JsonPath,
} from '../json-docs.js';
import { binaryMinLength, type PipelineSettings } from '../settings.js';
import type { Blobs } from '../../wire/blobs.js';
import { jsonText } from '../../wire/json.js';
import { viewIncludes, type BlobView } from '../../wire/blob-view.js';
import type { Extraction, Layer, LayerContext, Payload, Result } from '../types.js';

/** An ABP BinaryDataReference is small but names a file to download, whatever the result's size. */
const REFERENCE_KEY = '"downloadUrl"';

/**
 * Layer 4: binary data hidden in strings. In JSON (structuredContent and JSON text blocks), at any
 * depth: the ABP shapes `{content, mimeType, encoding}` and `{downloadUrl, mimeType}`, and base64
 * strings whose decoded bytes carry a known magic signature. In plain text: a text that is all
 * base64 of a binary file, and `data:` URIs (markdown images), replaced in place.
 */
export const binaryStringsLayer: Layer = {
  name: 'binary-strings',
  applies: (result, settings, blobs) => {
    const texts = (result.content ?? []).flatMap((block) => (block.type === 'text' ? [block.text] : []));
    if (result.structuredContent !== undefined) texts.push(jsonText(result.structuredContent));
    return texts.some((text) => mightHold(text, settings, blobs));
  },
  run: async (result, run) => {
    // From here on no layer reads JSON documents: what they still hold as bytes becomes text again.
    const afterJson = restoreInlaidText(await rewriteJsonDocuments(result, run, rewriteDocument), run.blobs);
    const afterText = await mapContent(afterJson, async (block, index) =>
      block.type !== 'text' || parseJsonText(block.text) !== undefined
        ? undefined
        : rewritePlainText(block, `content[${index}]`, run),
    );
    return sameTextsAlike(afterText);
  },
};

/**
 * A string of structuredContent that is the very text of a block rewritten above (server-filesystem
 * sends a file's text in both) is the same payload: it gets the same rewrite, not a second copy.
 */
function sameTextsAlike(result: Result): Result {
  if (typeof result.structuredContent !== 'object' || result.structuredContent === null) return result;
  const rewritten = new Map<string, string>();
  for (const block of result.content ?? []) {
    if (block.type === 'text' && !isNote(block) && originalText(block) !== block.text)
      rewritten.set(originalText(block), block.text);
  }
  if (!rewritten.size) return result;
  const swaps: { path: JsonPath; text: string }[] = [];
  findStringsDeep(result.structuredContent, (text, place) => {
    const replacement = rewritten.get(text);
    if (replacement !== undefined) swaps.push({ path: place.path(), text: replacement });
    return true;
  });
  let structured: unknown = result.structuredContent;
  for (const { path, text } of swaps) structured = setAtPath(structured, path, text);
  return swaps.length ? { ...result, structuredContent: structured as Result['structuredContent'] } : result;
}

/**
 * Whether a text is long enough to hide a payload, or names a file to download. In mode file every ABP
 * shape counts, however short (a declared text is saved as the file it is).
 */
function mightHold(text: string, settings: PipelineSettings, blobs: Blobs): boolean {
  if (settings.jsonPayloads === 'summaries') return text.length > 0;
  return text.length >= binaryMinLength(settings) || text.includes(REFERENCE_KEY) || blobs.hasInlaid(text);
}

async function rewriteDocument(doc: unknown, source: string, run: LayerContext): Promise<DocRewrite> {
  if (run.settings.jsonPayloads === 'summaries') return abpPayloadsInPlaceOf(doc, source, run);
  const rewrite: DocRewrite = { replacements: [], extractions: [], notes: [] };
  const min = binaryMinLength(run.settings);
  const { blobs } = run;
  const found: { path: JsonPath; payload: () => Promise<Payload | string | undefined> }[] = [];
  const withDataUris: { path: JsonPath; text: string }[] = [];

  walkJson(doc, (node, place) => {
    // Paths and sources are made only for what is found: made for every node, they cost depth² (#34 finding 3).
    const where = () => `${source}${pathText(place.path())}`;
    if (isBinaryData(node) && blobs.lengthOf(node.content) >= min) {
      const path = place.path();
      found.push({
        path,
        payload: async () => binaryDataPayload(node, siblingMetadata(doc, path, blobs), where(), blobs),
      });
      return SKIP;
    }
    if (isBinaryDataReference(node)) {
      const path = place.path();
      found.push({
        path,
        payload: async () => downloadPayload(node, siblingMetadata(doc, path, blobs), where(), run),
      });
      return SKIP;
    }
    const literal = typeof node === 'string' ? blobs.resolve(node) : undefined;
    if (literal !== undefined && mightBeBase64Value(literal, min)) {
      const path = place.path();
      found.push({ path, payload: async () => base64Payload(literal, doc, path, where(), min, blobs) });
    } else if (literal !== undefined && literal.length >= min && includes(literal, 'data:')) {
      withDataUris.push({ path: place.path(), text: typeof literal === 'string' ? literal : literal.text() });
    }
    return undefined;
  });

  // A string holding data: URIs stays a string, with artifact URIs where the payloads were.
  for (const { path, text } of withDataUris) {
    const replaced = await replaceDataUris(text, `${source}${pathText(path)}`, run);
    if (!replaced) continue;
    if (replaced.extractions.length) rewrite.replacements.push({ path, value: replaced.text });
    rewrite.extractions.push(...replaced.extractions);
    rewrite.notes.push(...replaced.failures);
  }

  for (const { path, payload: make } of found) {
    const payload = await make();
    if (payload !== undefined) await extractInto(rewrite, path, payload, `the data at ${source}${pathText(path)}`, run);
  }
  return rewrite;
}

/**
 * Mode file, the ABP bridge's data flow: the ABP shapes at the top of the document or one level down
 * (declared text too) are stored, their summaries take the document's place, and its other fields
 * become their metadata. A document without any is left to the size net, which stores it whole; one
 * with a payload that could not be stored stays, with references where the others were.
 */
async function abpPayloadsInPlaceOf(doc: unknown, source: string, run: LayerContext): Promise<DocRewrite> {
  const rewrite: DocRewrite = { replacements: [], extractions: [], notes: [] };
  for (const found of findAbpPayloads(doc, 1, { declaredText: true })) {
    const where = `${source}${pathText(found.path)}`;
    const metadata = Object.keys(found.metadata).length ? found.metadata : undefined;
    const payload =
      found.kind === 'binary'
        ? binaryDataPayload(found.value, metadata, where, run.blobs)
        : await downloadPayload(found.value, metadata, where, run);
    if (payload === undefined) continue; // a dry run downloads nothing
    await extractInto(rewrite, found.path, payload, `the ${found.value.mimeType} at ${where}`, run);
  }
  // One payload that stays (not base64, a failed download) keeps the document in view, references and all.
  rewrite.replacesDocument = rewrite.extractions.length > 0 && rewrite.notes.length === 0;
  return rewrite;
}

function binaryDataPayload(
  node: { content: string; mimeType: string; encoding?: string; filename?: string },
  metadata: Record<string, unknown> | undefined,
  source: string,
  blobs: Blobs,
): Payload | string {
  const content = blobs.resolve(node.content);
  if (node.encoding !== undefined && /^utf-?8$/i.test(node.encoding)) {
    const text = typeof content === 'string' ? content : content.text();
    return { data: { text }, mimeType: node.mimeType, filename: node.filename, metadata, source };
  }
  const invalidNote = `[mcp-offload: the ${node.mimeType} data at ${source} is not valid base64; it was left as it is]`;
  const data = base64Data(content);
  if (!data) return invalidNote;
  return { data, invalidNote, mimeType: node.mimeType, filename: node.filename, metadata, source };
}

async function downloadPayload(
  node: BinaryDataReference,
  metadata: Record<string, unknown> | undefined,
  source: string,
  run: LayerContext,
): Promise<Payload | string | undefined> {
  if (run.settings.dryRun) {
    run.log.info({ source, url: node.downloadUrl }, 'dry run: would download a BinaryDataReference');
    return undefined;
  }
  try {
    const { download } = run.settings;
    // Imported on the first download: it brings node:http and node:https, and an ESM import of node:http reads every
    // export, which loads undici, http2, tls and zlib too (several MiB a proxy that never downloads would hold).
    const { downloadReference } = await import('../detect/abp-download.js');
    const { bytes, mimeType } = await downloadReference(node, {
      ...download,
      trustedOrigins: download.abpApps ? abpAppOrigins() : undefined,
    });
    // The URL is not repeated in the metadata: it may carry a token (`auth.type: query`).
    return {
      data: { bytes },
      mimeType: mimeType || node.mimeType,
      filename: node.filename,
      metadata,
      source,
      fetched: true,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `[mcp-offload: could not download ${node.downloadUrl} (${source}): ${message}. The reference was left as it is.]`;
  }
}

async function base64Payload(
  value: string | BlobView,
  doc: unknown,
  path: JsonPath,
  source: string,
  min: number,
  blobs: Blobs,
): Promise<Payload | undefined> {
  // The signature is checked on the head; the decode below validates the whole string, once.
  const detected =
    typeof value === 'string'
      ? await detectBase64Binary(value, min, false)
      : await detectBase64Binary(sampleOf(value), 4, false);
  const data = detected && base64Data(value);
  if (!detected || !data) return undefined;
  if (typeof value === 'string' && 'bytes' in data && data.bytes.length === promisedBytes(value))
    markLiteralChecked(doc, path);
  return { data, mimeType: detected.mimeType, metadata: siblingMetadata(doc, path, blobs), source };
}

async function rewritePlainText(
  block: TextContent,
  source: string,
  run: LayerContext,
): Promise<ContentBlock[] | undefined> {
  const { text } = block;
  const min = binaryMinLength(run.settings);
  if (mightBeBase64(text.trim(), min)) {
    const payload = await base64Payload(text.trim(), undefined, [], source, min, run.blobs);
    if (payload) {
      const outcome = await run.save(payload);
      return placeOutcome(
        outcome,
        [{ type: 'text', text }],
        `the base64 ${payload.mimeType} at ${source}`,
        run.announced,
      );
    }
  }
  const replaced = await replaceDataUris(text, source, run);
  if (!replaced) return undefined;
  const after = replaced.extractions.flatMap((extraction) => announce(extraction, run.announced));
  const standIns = replaced.extractions.length ? [standInNote(replaced.replaced, run.settings.argumentRefs)] : [];
  return [rewrittenText(block, replaced.text), ...standIns, ...after, ...replaced.failures.map(note)];
}

/**
 * `data:` URIs in a text (markdown images, HTML sources) stored and replaced in place by the
 * artifact's URI; the rest of the text is kept. Undefined when there is none to store.
 */
async function replaceDataUris(
  text: string,
  source: string,
  run: LayerContext,
): Promise<{ text: string; replaced: number; extractions: Extraction[]; failures: string[] } | undefined> {
  const uris = findDataUris(text, binaryMinLength(run.settings));
  if (!uris.length) return undefined;
  const replacements: { start: number; end: number; replacement: string }[] = [];
  const extractions: Extraction[] = [];
  const failures: string[] = [];
  for (const [n, match] of uris.entries()) {
    const bytes = match.base64 ? decodeBase64Strict(match.payload) : Buffer.from(match.payload, 'utf8');
    if (!bytes) continue;
    const outcome = await run.save({
      data: { bytes },
      mimeType: match.mimeType,
      source: `${source} data URI ${n + 1}`,
    });
    if (outcome.ok === false) failures.push(failureText(`a ${match.mimeType} data URI at ${source}`, outcome.message));
    if (outcome.ok !== true) continue;
    const literal = text.slice(match.start, match.end);
    const start = literal.indexOf(',') + 1;
    const encoding = match.base64 ? canonicalEncoding(match.payload, bytes.length) : undefined;
    const end = literal.length;
    const written = encoding ? { form: formIn(literal, start, end, encoding) } : { literal, start, end, bytes };
    const uri = await run.literalUri(outcome.extraction, 'data-uri', written);
    if (uri === undefined) continue; // stays as it is: a replacement that cannot be undone would lose it
    replacements.push({ start: match.start, end: match.end, replacement: uri });
    extractions.push(outcome.extraction);
  }
  if (!replacements.length && !failures.length) return undefined;
  return { text: replaceRanges(text, replacements), replaced: replacements.length, extractions, failures };
}

/** Enough of the start of a marked string for the cheap checks (the decode validates it all). */
const SAMPLE_BYTES = 8192;

/** The string itself, or for kept bytes the start of the string they stand for. */
function sampleOf(value: string | BlobView): string {
  return typeof value === 'string' ? value : value.head(SAMPLE_BYTES);
}

function mightBeBase64Value(value: string | BlobView, min: number): boolean {
  return typeof value === 'string'
    ? mightBeBase64(value, min)
    : value.length >= min && mightBeBase64(sampleOf(value), 4);
}

function includes(value: string | BlobView, needle: string): boolean {
  return typeof value === 'string' ? value.includes(needle) : viewIncludes(value, needle);
}

function restoreInlaidText(result: Result, blobs: Blobs): Result {
  if (!result.content?.some((block) => block.type === 'text' && blobs.hasInlaid(block.text))) return result;
  const content = result.content.map((block) =>
    block.type === 'text' && blobs.hasInlaid(block.text)
      ? rewrittenText(block, blobs.restoreInlaid(block.text))
      : block,
  );
  return { ...result, content };
}
