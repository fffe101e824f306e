import type { ContentBlock } from '@modelcontextprotocol/server';
import { setAtPath } from './detect/walk.js';
export { walkJson, SKIP, STOP, type JsonPlace } from './detect/walk.js';
import { announce, note, outcomeNote, rewrittenText, standInNote } from './blocks.js';
import type { Blobs } from '../wire/blobs.js';
import { jsonText } from '../wire/json.js';
import { canonicalEncoding, encodingOfPieces } from '../codec/base64.js';
import { formIn } from '../artifacts/literals.js';
import {
  confirmJsonText,
  literalRange,
  parseJsonText,
  parseJsonTextUnconfirmed,
  type JsonPath,
  type LiteralRange,
} from './json-text.js';
import { isReference, referenceTo } from './reference.js';
import { isBinaryData } from './detect/abp-shapes.js';
import type { Extraction, LayerContext, Payload, Result, SaveOutcome, WrittenLiteral } from './types.js';
import { locateStrings, pathKey } from './json-locate.js';

export type { JsonPath } from './json-text.js';
export { parseJsonText };

/** A rewrite of one JSON document: values to put at paths, and the artifacts behind them. */
export interface DocRewrite {
  /** Values to put at paths. */
  replacements: Replacement[];
  extractions: Extraction[];
  /** Text blocks to show after the document (failures, download errors). */
  notes: string[];
  /** The summaries take the document's place (mode file): a text block holding it is dropped. */
  replacesDocument?: boolean;
}

interface Replacement {
  path: JsonPath;
  value: unknown;
  /** The value is a reference to what was there, stored as this. */
  extraction?: Extraction;
  /** What was there was this base64 string, stored as the `size` bytes it strictly decodes to. */
  decoded?: { base64: string; size: number };
}

export type DocRewriter = (doc: unknown, source: string, run: LayerContext) => Promise<DocRewrite>;

/**
 * Runs a rewriter over every JSON document of a result: `structuredContent`, and each text block
 * that holds a JSON object or array. A rewritten text block stays valid JSON; the summaries of
 * what was taken out follow it. Nothing is re-serialized unless something in it changed.
 */
export async function rewriteJsonDocuments(result: Result, run: LayerContext, rewriter: DocRewriter): Promise<Result> {
  let changed = false;
  let next: Result = result;

  // Text blocks first, so an artifact shared with structuredContent is summarized next to its JSON.
  if (Array.isArray(result.content)) {
    const content: ContentBlock[] = [];
    for (const [index, block] of result.content.entries()) {
      const doc = block.type === 'text' ? parseJsonTextUnconfirmed(block.text) : undefined;
      if (doc === undefined || block.type !== 'text') {
        content.push(block);
        continue;
      }
      const rewrite = await rewriter(doc, `content[${index}]`, onlyIfJson(run, doc));
      if (!confirmJsonText(doc)) {
        content.push(block); // not JSON after all: the plain-text path has it
        continue;
      }
      if (!rewrite.replacesDocument) {
        const { text, standIns } = rewrite.replacements.length
          ? await rewriteText(block.text, doc, rewrite.replacements, run)
          : { text: block.text, standIns: 0 };
        content.push(text === block.text ? block : rewrittenText(block, text));
        if (standIns) content.push(standInNote(standIns, run.settings.argumentRefs));
      }
      for (const extraction of rewrite.extractions) content.push(...announce(extraction, run.announced, false));
      for (const text of rewrite.notes) content.push(note(text));
      if (
        rewrite.replacements.length ||
        rewrite.extractions.length ||
        rewrite.notes.length ||
        rewrite.replacesDocument
      ) {
        changed = true;
      }
    }
    if (changed) next = { ...next, content };
  }

  if (isJsonContainer(result.structuredContent)) {
    const rewrite = await rewriter(result.structuredContent, 'structuredContent', run);
    const trailing: ContentBlock[] = [];
    for (const extraction of rewrite.extractions) trailing.push(...announce(extraction, run.announced, false));
    for (const text of rewrite.notes) trailing.push(note(text));
    if (rewrite.replacements.length) {
      const replacements =
        run.settings.jsonPayloads === 'in-place'
          ? inDeclaredTypes(result.structuredContent, rewrite.replacements)
          : rewrite.replacements;
      next = {
        ...next,
        structuredContent: applyReplacements(result.structuredContent, replacements) as Result['structuredContent'],
      };
      changed = true;
    }
    if (trailing.length) {
      next = { ...next, content: [...(next.content ?? []), ...trailing] };
      changed = true;
    }
  }
  return changed ? next : result;
}

const NOT_JSON: SaveOutcome = { ok: false, message: 'the text is not JSON' };

/**
 * The layer context for a rewriter of a text's document: nothing is stored from the text unless it
 * is JSON, which is confirmed (at the cost of a pass over its long literals) only when it matters.
 */
function onlyIfJson(run: LayerContext, doc: unknown): LayerContext {
  return Object.create(run, {
    save: { value: async (payload: Payload) => (confirmJsonText(doc) ? run.save(payload) : NOT_JSON) },
  }) as LayerContext;
}

/**
 * The JSON text with each replaced string spliced out in place, so everything else (number precision,
 * key order, formatting, escapes) stays as the upstream wrote it. Each reference records how the
 * payload was written, so the exact literal can be put back when the text comes back (restore.ts); a
 * payload whose literal cannot be recorded stays. Falls back to re-serializing when a replaced value
 * cannot be placed in the text.
 */
async function rewriteText(
  text: string,
  doc: unknown,
  replacements: DocRewrite['replacements'],
  run: LayerContext,
): Promise<{ text: string; standIns: number }> {
  const ranges = new Map<JsonPath, LiteralRange | undefined>();
  for (const { path } of replacements)
    ranges.set(path, literalRange(doc, path) ?? findLiteral(text, valueAt(doc, path), run.blobs));
  const unplaced = replacements.filter(({ path }) => !ranges.get(path)).map(({ path }) => path);
  if (unplaced.length) {
    const located = await locateStrings(text, unplaced);
    for (const path of unplaced) ranges.set(path, located.get(pathKey(path)));
  }
  const splices: { start: number; end: number; json: string }[] = [];
  const kept: DocRewrite['replacements'] = [];
  for (const replacement of replacements) {
    const range = ranges.get(replacement.path);
    const value = await withRecordedLiteral(replacement, range && text.slice(range.start, range.end), doc, run);
    if (value === undefined) continue;
    kept.push({ ...replacement, value });
    if (range) splices.push({ ...range, json: jsonText(value) });
  }
  const standIns = kept.filter(({ value }) => isReference(value)).length;
  if (splices.length < kept.length) return { text: jsonText(applyReplacements(doc, kept)), standIns };
  splices.sort((a, b) => b.start - a.start);
  let out = text;
  for (const { start, end, json } of splices) out = out.slice(0, start) + json + out.slice(end);
  return { text: out, standIns };
}

/** The value to splice in: a reference names the URI its literal was recorded under; undefined to keep the literal. */
async function withRecordedLiteral(
  { path, value, extraction, decoded }: Replacement,
  literal: string | undefined,
  doc: unknown,
  run: LayerContext,
): Promise<unknown> {
  if (!extraction || !isReference(value)) return value;
  const original = valueAt(doc, path);
  const kept = run.blobs.view(original);
  let written: WrittenLiteral;
  if (kept) {
    // Kept as bytes, it was an unescaped literal: its quotes around the base64 as it came.
    const encoding = encodingOfPieces(kept);
    if (!encoding) return undefined;
    written = { form: { before: '"', encoding, after: '"' } };
  } else {
    const exact = literal ?? JSON.stringify(original);
    // Written as the very string that was decoded (no escapes), in a standard form: known without the bytes.
    const encoding =
      decoded && exact.length === decoded.base64.length + 2 && exact.slice(1, -1) === decoded.base64
        ? canonicalEncoding(decoded.base64, decoded.size)
        : undefined;
    written = encoding
      ? { form: formIn(exact, 1, exact.length - 1, encoding) }
      : { literal: exact, start: 1, end: exact.length - 1 };
  }
  const uri = await run.literalUri(extraction, 'json-string', written);
  return uri === undefined ? undefined : { ...value, $artifact: uri };
}

/** Characters JSON.stringify would escape: a string without them is written as is between quotes. */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * Where the JSON literal of `original` stands in `text`, if it is there exactly once, written
 * without escapes (or, for a marker, as the cutter inlaid it); else undefined. Found by a short head
 * and checked in place, so a payload of tens of megabytes is neither serialized again nor searched
 * for as a whole.
 */
function findLiteral(text: string, original: unknown, blobs: Blobs): LiteralRange | undefined {
  if (blobs.isMarker(original)) return findOnce(text, JSON.stringify(original));
  if (typeof original !== 'string' || original.length < 32 || NEEDS_ESCAPE.test(original)) return undefined;
  const head = `"${original.slice(0, 64)}`;
  const start = text.indexOf(head);
  if (start === -1 || !text.startsWith(original, start + 1) || text[start + 1 + original.length] !== '"')
    return undefined;
  return text.indexOf(head, start + 1) === -1 ? { start, end: start + original.length + 2 } : undefined;
}

function findOnce(text: string, literal: string): LiteralRange | undefined {
  const start = text.indexOf(literal);
  if (start === -1 || text.indexOf(literal, start + 1) !== -1) return undefined;
  return { start, end: start + literal.length };
}

export function valueAt(doc: unknown, path: JsonPath): unknown {
  let node: unknown = doc;
  for (const key of path) node = (node as Record<string | number, unknown> | undefined)?.[key];
  return node;
}

/**
 * Stores one payload found in a document and records the outcome in the rewrite: a reference at
 * its path, or a note. A string instead of a payload is a note already (e.g. invalid base64).
 */
export async function extractInto(
  rewrite: DocRewrite,
  path: JsonPath,
  payload: Payload | string,
  what: string,
  run: LayerContext,
): Promise<void> {
  if (typeof payload === 'string') {
    rewrite.notes.push(payload);
    return;
  }
  const outcome = await run.save(payload);
  if (outcome.ok === true) {
    const { data } = payload;
    rewrite.replacements.push({
      path,
      value: referenceTo(outcome.extraction),
      extraction: outcome.extraction,
      ...('bytes' in data && data.base64 !== undefined
        ? { decoded: { base64: data.base64, size: data.bytes.length } }
        : {}),
    });
    rewrite.extractions.push(outcome.extraction);
    return;
  }
  const text = outcomeNote(outcome, what, payload.invalidNote);
  if (text !== undefined) rewrite.notes.push(text);
}

function isJsonContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/**
 * structuredContent must keep fitting the tool's output schema: a string that held a payload becomes the
 * artifact's URI, an ABP BinaryData keeps its shape with the URI as its content. Anything else stays a
 * reference object (the advertised schema accepts one there, see output-schema.ts).
 */
function inDeclaredTypes(doc: unknown, replacements: DocRewrite['replacements']): DocRewrite['replacements'] {
  return replacements.map(({ path, value }) => {
    if (!isReference(value)) return { path, value };
    const original = valueAt(doc, path);
    if (typeof original === 'string') return { path, value: value.$artifact };
    if (isBinaryData(original)) return { path: [...path, 'content'], value: value.$artifact };
    return { path, value };
  });
}

function applyReplacements(doc: unknown, replacements: DocRewrite['replacements']): unknown {
  // Deepest first, so a replacement inside a replaced value cannot resurrect it.
  const ordered = [...replacements].sort((a, b) => b.path.length - a.path.length);
  let next = doc;
  for (const { path, value } of ordered) next = path.length === 0 ? value : setAtPath(next, path, value);
  return next;
}

/** The object holding the node at `path`, for sibling metadata and summary placeholders. */
export function parentOf(root: unknown, path: JsonPath): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const key of path.slice(0, -1)) node = (node as Record<string | number, unknown>)?.[key];
  return typeof node === 'object' && node !== null && !Array.isArray(node)
    ? (node as Record<string, unknown>)
    : undefined;
}

/** Small sibling values of the node at `path`: what a summary shows as `Metadata:`. */
export function siblingMetadata(root: unknown, path: JsonPath, blobs: Blobs): Record<string, unknown> | undefined {
  const parent = parentOf(root, path);
  if (!parent) return undefined;
  const key = path[path.length - 1];
  const metadata: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (name === key) continue;
    if (typeof value === 'string' && blobs.lengthOf(value) > 200) continue;
    if (typeof value === 'object' && value !== null) {
      // A marker in an object stands for a long string: serialized, it is inlaid.
      const json = jsonText(value);
      if (json.length > 200 || blobs.hasInlaid(json)) continue;
    }
    metadata[name] = value;
  }
  return Object.keys(metadata).length ? metadata : undefined;
}
