import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { isBinaryData, isBinaryDataReference, downloadReference } from '../detect/abp-shapes.js';
import { detectBase64Binary, mightBeBase64 } from '../detect/base64.js';
import { findDataUris, replaceRanges } from '../detect/data-uri.js';
import { base64Data, decodeBase64Strict, promisedBytes } from '../decode.js';
import { markLiteralChecked } from '../json-text.js';
import { announce, failureNote, failureText, mapContent } from '../blocks.js';
import { extractInto, parseJsonText, rewriteJsonDocuments, siblingMetadata, walkJson, type DocRewrite, type JsonPath } from '../json-docs.js';
import { blobHead, blobIncludes, blobString, hasInlaidMarker, isBlobMarker, restoreInlaid, stringLength } from '../../transports/blobs.js';
import type { Extraction, Layer, LayerContext, Payload, Result } from '../types.js';

/**
 * Layer 4: binary data hidden in strings. In JSON (structuredContent and JSON text blocks), at any
 * depth: the ABP shapes `{content, mimeType, encoding}` and `{downloadUrl, mimeType}`, and base64
 * strings whose decoded bytes carry a known magic signature. In plain text: a text that is all
 * base64 of a binary file, and `data:` URIs (markdown images), replaced in place.
 */
export const binaryStringsLayer: Layer = async (result, run) => {
  // From here on no layer reads JSON documents: what they still hold as bytes becomes text again.
  const afterJson = restoreInlaidText(await rewriteJsonDocuments(result, run, rewriteDocument));
  return mapContent(afterJson, async (block, index) =>
    block.type !== 'text' || parseJsonText(block.text) !== undefined ? undefined : rewritePlainText(block.text, `content[${index}]`, run),
  );
};

async function rewriteDocument(doc: unknown, source: string, run: LayerContext): Promise<DocRewrite> {
  const rewrite: DocRewrite = { replacements: [], extractions: [], notes: [] };
  const min = run.settings.minBinaryLength;
  const found: { path: JsonPath; payload: () => Promise<Payload | string | undefined> }[] = [];
  const withDataUris: { path: JsonPath; text: string }[] = [];

  walkJson(doc, (node, path) => {
    const where = `${source}${pathText(path)}`;
    if (isBinaryData(node) && stringLength(node.content) >= min) {
      found.push({ path, payload: async () => binaryDataPayload(node, doc, path, where) });
      return false;
    }
    if (isBinaryDataReference(node)) {
      found.push({ path, payload: async () => downloadPayload(node, doc, path, where, run) });
      return false;
    }
    if (typeof node === 'string' && mightBeBase64Value(node, min)) {
      found.push({ path, payload: async () => base64Payload(node, doc, path, where, min) });
    } else if (typeof node === 'string' && stringLength(node) >= min && includes(node, 'data:')) {
      withDataUris.push({ path, text: isBlobMarker(node) ? blobString(node)! : node });
    }
    return true;
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

function binaryDataPayload(node: { content: string; mimeType: string; encoding?: string; filename?: string }, doc: unknown, path: JsonPath, source: string): Payload | string {
  const metadata = siblingMetadata(doc, path);
  if (node.encoding === 'utf-8') {
    const text = isBlobMarker(node.content) ? blobString(node.content)! : node.content;
    return { data: { text }, mimeType: node.mimeType, filename: node.filename, metadata, source };
  }
  const invalidNote = `[mcp-offload: the ${node.mimeType} data at ${source} is not valid base64; it was left as it is]`;
  const data = base64Data(node.content);
  if (!data) return invalidNote;
  return { data, invalidNote, mimeType: node.mimeType, filename: node.filename, metadata, source };
}

async function downloadPayload(
  node: Parameters<typeof downloadReference>[0],
  doc: unknown,
  path: JsonPath,
  source: string,
  run: LayerContext,
): Promise<Payload | string | undefined> {
  if (run.settings.dryRun) {
    run.log.info({ source, url: node.downloadUrl }, 'dry run: would download a BinaryDataReference');
    return undefined;
  }
  try {
    const { bytes, mimeType } = await downloadReference(node, run.settings.download);
    return { data: { bytes }, mimeType: mimeType || node.mimeType, filename: node.filename, metadata: { ...siblingMetadata(doc, path), downloadUrl: node.downloadUrl }, source };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `[mcp-offload: could not download ${node.downloadUrl} (${source}): ${message}. The reference was left as it is.]`;
  }
}

async function base64Payload(value: string, doc: unknown, path: JsonPath, source: string, min: number): Promise<Payload | undefined> {
  // The signature is checked on the head; the decode below validates the whole string, once.
  const detected = isBlobMarker(value) ? await detectBase64Binary(sampleOf(value), 4, false) : await detectBase64Binary(value, min, false);
  const data = detected && base64Data(value);
  if (!detected || !data) return undefined;
  if ('bytes' in data && data.bytes.length === promisedBytes(value)) markLiteralChecked(doc, path);
  return { data, mimeType: detected.mimeType, metadata: siblingMetadata(doc, path), source };
}

async function rewritePlainText(text: string, source: string, run: LayerContext): Promise<ContentBlock[] | undefined> {
  const min = run.settings.minBinaryLength;
  if (mightBeBase64(text.trim(), min)) {
    const payload = await base64Payload(text.trim(), undefined, [], source, min);
    if (payload) {
      const outcome = await run.save(payload);
      if (outcome.ok === true) return announce(outcome.extraction, run.announced);
      if (outcome.ok === false) return [failureNote(`the base64 ${payload.mimeType} at ${source}`, outcome.message), { type: 'text', text }];
      return undefined;
    }
  }
  const replaced = await replaceDataUris(text, source, run);
  if (!replaced) return undefined;
  const after = replaced.extractions.flatMap((extraction) => announce(extraction, run.announced));
  return [{ type: 'text', text: replaced.text }, ...after, ...replaced.failures.map((note) => ({ type: 'text' as const, text: note }))];
}

/**
 * `data:` URIs in a text (markdown images, HTML sources) stored and replaced in place by the
 * artifact's URI; the rest of the text is kept. Undefined when there is none to store.
 */
async function replaceDataUris(
  text: string,
  source: string,
  run: LayerContext,
): Promise<{ text: string; extractions: Extraction[]; failures: string[] } | undefined> {
  const uris = findDataUris(text, run.settings.minBinaryLength);
  if (!uris.length) return undefined;
  const replacements: { start: number; end: number; replacement: string }[] = [];
  const extractions: Extraction[] = [];
  const failures: string[] = [];
  for (const [n, match] of uris.entries()) {
    const bytes = match.base64 ? decodeBase64Strict(match.payload) : Buffer.from(match.payload, 'utf8');
    if (!bytes) continue;
    const outcome = await run.save({ data: { bytes }, mimeType: match.mimeType, source: `${source} data URI ${n + 1}` });
    if (outcome.ok === true) {
      replacements.push({ start: match.start, end: match.end, replacement: outcome.extraction.record.uri });
      extractions.push(outcome.extraction);
    } else if (outcome.ok === false) {
      failures.push(failureText(`a ${match.mimeType} data URI at ${source}`, outcome.message));
    }
  }
  if (!replacements.length && !failures.length) return undefined;
  return { text: replaceRanges(text, replacements), extractions, failures };
}

/** Enough of the start of a marked string for the cheap checks (the decode validates it all). */
const SAMPLE_BYTES = 8192;

/** The string itself, or for a marker the start of the string it stands for. */
function sampleOf(value: string): string {
  return isBlobMarker(value) ? blobHead(value, SAMPLE_BYTES) : value;
}

function mightBeBase64Value(value: string, min: number): boolean {
  return isBlobMarker(value) ? stringLength(value) >= min && mightBeBase64(sampleOf(value), 4) : mightBeBase64(value, min);
}

function includes(value: string, needle: string): boolean {
  return isBlobMarker(value) ? blobIncludes(value, needle) : value.includes(needle);
}

function restoreInlaidText(result: Result): Result {
  if (!result.content?.some((block) => block.type === 'text' && hasInlaidMarker(block.text))) return result;
  return { ...result, content: result.content.map((block) => (block.type === 'text' ? { ...block, text: restoreInlaid(block.text, { release: false }) } : block)) };
}

function pathText(path: JsonPath): string {
  return path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('');
}
