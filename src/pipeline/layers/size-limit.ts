import type { ContentBlock, TextContent } from '@modelcontextprotocol/sdk/types.js';
import { announce, isNote, mapContent, note, originalText, placeOutcome } from '../blocks.js';
import { restoreInlaid } from '../../transports/blobs.js';
import { findStringsDeep, pathText, setAtPath, type JsonPath } from '../detect/walk.js';
import { referenceTo } from '../reference.js';
import { inlineChars } from '../settings.js';
import { previewText } from '../summary/preview.js';
import { textMimeType } from '../text-kind.js';
import type { Extraction, Layer, LayerContext, Result } from '../types.js';

/**
 * Layer 5, the safety net: text still over the inline limit after the other layers is stored (as .json,
 * .csv, .md or .txt by its content) and replaced by a preview; so is a structuredContent whose JSON is over
 * the limit. What a text block and structuredContent both carry is stored once (see structuredInPlace).
 */
export const sizeLimitLayer: Layer = {
  name: 'size-limit',
  applies: (result, settings) => {
    const limit = inlineChars(settings);
    if ((result.content ?? []).some((block) => isLongText(block, limit))) return true;
    return isContainer(result.structuredContent) && JSON.stringify(result.structuredContent).length > limit;
  },
  run: async (result, run) => {
    const limit = inlineChars(run.settings);
    let next = result;
    if (isContainer(result.structuredContent)) {
      const json = JSON.stringify(result.structuredContent);
      if (json.length > limit) next = await storeStructured(result, json, limit, run);
    }
    return mapContent(next, async (block, index) =>
      isLongText(block, limit) ? storeText(block as TextContent, `content[${index}]`, run) : undefined,
    );
  },
};

/**
 * structuredContent over the limit. Servers send their structured result as text too (the spec asks
 * them to), so when a text block carries the same document, or one of its strings, that text is the
 * payload: stored once, its block announces it, structuredContent points at it. Then the longest strings
 * are stored one by one, each replaced by its artifact URI (a string stays a string, so the tool's output
 * schema still holds), until the document fits; only one that still does not is stored whole and replaced
 * by a reference (output-schema.ts widens the root of schemas that allow that). With a limit of 0 (mode
 * file) nothing can stay, so the document is stored whole.
 */
async function storeStructured(result: Result, json: string, limit: number, run: LayerContext): Promise<Result> {
  const structured = result.structuredContent as object;
  const texts = (result.content ?? []).flatMap((block) =>
    block.type === 'text' && !isNote(block) ? [block.text] : [],
  );
  const sameDocument = texts.find((text) => text.length > limit && sameJson(text, json));
  if (sameDocument !== undefined) {
    const outcome = await run.save({
      data: { text: sameDocument },
      mimeType: 'application/json',
      source: 'structuredContent',
    });
    return outcome.ok === true ? { ...result, structuredContent: reference(outcome.extraction) } : result;
  }

  let next = structured;
  let length = json.length;
  const announced: ContentBlock[] = [];
  for (const { path, text, inText } of candidateStrings(structured, limit, texts)) {
    if (!inText && length <= limit) continue;
    const outcome = await run.save({
      data: { text },
      mimeType: textMimeType(text),
      source: `structuredContent${pathText(path)}`,
    });
    if (outcome.ok !== true) continue;
    const uri = outcome.extraction.record.uri;
    next = setAtPath(next, path, uri) as object;
    length -= JSON.stringify(text).length - JSON.stringify(uri).length;
    // A string a text block also carries is announced there, where the model reads it.
    if (!inText) announced.push(...announce(outcome.extraction, run.announced));
  }
  const carried = next !== structured && limit === 0;
  if (length > limit && !carried) {
    const whole = next === structured ? json : JSON.stringify(next);
    const outcome = await run.save({
      data: { text: whole },
      mimeType: 'application/json',
      source: 'structuredContent',
    });
    if (outcome.ok === true) {
      next = reference(outcome.extraction);
      announced.push(...announce(outcome.extraction, run.announced));
    }
  }
  if (next === structured) return result;
  return {
    ...result,
    structuredContent: next as Result['structuredContent'],
    content: [...(result.content ?? []), ...announced],
  };
}

/** Below this a string is not worth a file: its URI would be about as long. */
const MIN_STORED_STRING = 200;

/**
 * The strings of the document a text block carries whole when over the limit (the same payload twice:
 * stored once), then, unless the limit is 0, every other string worth storing; longest first.
 */
function candidateStrings(
  doc: unknown,
  limit: number,
  texts: string[],
): { path: JsonPath; text: string; inText: boolean }[] {
  const carried = new Set(texts.filter((text) => text.length > limit));
  const found: { path: JsonPath; text: string; inText: boolean }[] = [];
  findStringsDeep(doc, (text, path) => {
    const inText = carried.has(text);
    if (inText || (limit > 0 && text.length >= MIN_STORED_STRING)) found.push({ path, text, inText });
    return true;
  });
  return found.sort((a, b) => Number(b.inText) - Number(a.inText) || b.text.length - a.text.length);
}

async function storeText(block: TextContent, source: string, run: LayerContext): Promise<ContentBlock[] | undefined> {
  const { text } = block;
  const original = restoreInlaid(originalText(block), { release: false });
  const outcome = await run.save({ data: { text: original }, mimeType: textMimeType(original), source });
  if (outcome.ok !== true) return placeOutcome(outcome, [block], `a text of ${text.length} characters`, run.announced);
  const blocks = announce(outcome.extraction, run.announced);
  if (!blocks.length) return [note(`[stored as ${outcome.extraction.record.uri}]`)];
  if (run.settings.previewChars <= 0) return blocks;
  const { preview, truncated } = previewText(text, run.settings.previewChars);
  return [
    blocks[0],
    note(`Preview${truncated ? ` (first ${preview.length} characters)` : ''}:\n${preview}`),
    ...blocks.slice(1),
  ];
}

/** Whether a text is the JSON document `json` is the compact form of. */
function sameJson(text: string, json: string): boolean {
  const start = text.trimStart()[0];
  if (start !== '{' && start !== '[') return false;
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}

function reference(extraction: Extraction): Record<string, unknown> {
  return referenceTo(extraction) as unknown as Record<string, unknown>;
}

/** A text the upstream sent (or a layer rewrote in place) that is over the limit. */
function isLongText(block: ContentBlock, limit: number): boolean {
  return block.type === 'text' && !isNote(block) && block.text.length > limit;
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
