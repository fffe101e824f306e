import type { ContentBlock, TextContent } from '@modelcontextprotocol/server';
import { announce, isNote, mapContent, note, originalText, placeOutcome } from '../blocks.js';
import { findStringsDeep, pathText, setAtPath, type JsonPath } from '../detect/walk.js';
import { referenceTo } from '../reference.js';
import { belowFloor, dumpChars, inlineChars, limitOf, type PipelineSettings } from '../settings.js';
import { countLines } from '../../artifacts/lines.js';
import { headAndTail } from '../summary/preview.js';
import { isForReading, textMimeType } from '../text-kind.js';
import type { Extraction, Layer, LayerContext, Result } from '../types.js';
import { jsonText, parseJson, stringifyJson } from '../../wire/json.js';

/**
 * Layer 5, the safety net: what is still too long for the client after the other layers is stored (as .json,
 * .csv, .md or .txt by its content) and replaced by a summary and a preview of its start and end. Text a
 * model works with (code, prose) may be as long as the client takes (`inlineLimit`, client-budgets.ts);
 * a dump (base64, minified code, JSON on one line) only `dumpLimit`; the client's line limit counts too.
 * structuredContent over the limit is handled by storeStructured; a result still over the client's
 * `resultLimit` then has its longest texts stored until it fits.
 */
export const sizeLimitLayer: Layer = {
  name: 'size-limit',
  applies: (result, settings) => {
    if ((result.content ?? []).some((block) => isTooLong(block, settings))) return true;
    if (isContainer(result.structuredContent) && jsonText(result.structuredContent).length > inlineChars(settings)) {
      return true;
    }
    return overResultLimit(result, settings);
  },
  run: async (result, run) => {
    const limit = inlineChars(run.settings);
    // Decided once: telling text to read from a dump and counting lines scan the whole text.
    const tooLong = new Set(
      (result.content ?? []).filter((b) => isTooLong(b, run.settings)).map((b) => (b as TextContent).text),
    );
    let next = result;
    if (isContainer(result.structuredContent)) {
      const json = stringifyJson(result.structuredContent);
      if (json.length > limit || [...tooLong].some((text) => json.includes(JSON.stringify(text).slice(1, -1)))) {
        next = await storeStructured(result, json, limit, tooLong, run);
      }
    }
    // What storeStructured added is notes and links: the texts are the upstream's, decided above.
    next = await mapContent(next, async (block, index) =>
      block.type === 'text' && !isNote(block) && tooLong.has(block.text)
        ? storeText(block, `content[${index}]`, run)
        : undefined,
    );
    return fitResult(next, run);
  },
};

/** A text the upstream sent (or a layer rewrote in place) that is too long or has too many lines for the client. */
function isTooLong(block: ContentBlock, settings: PipelineSettings): boolean {
  if (block.type !== 'text' || isNote(block)) return false;
  const { text } = block;
  if (belowFloor(text, settings)) return false;
  if (
    text.length > dumpChars(settings) &&
    text.length > (isForReading(text) ? inlineChars(settings) : dumpChars(settings))
  ) {
    return true;
  }
  const maxLines = limitOf(settings.lineLimit, 0);
  return maxLines > 0 && text.length > maxLines && countLines(text) > maxLines;
}

function overResultLimit(result: Result, settings: PipelineSettings): boolean {
  const limit = limitOf(settings.resultLimit, 0);
  return limit > 0 && Buffer.byteLength(jsonText(result)) > limit;
}

/**
 * A result the client would refuse or cut as a whole: its longest texts are stored until it fits. A text under
 * the floor (a caption beside a big image) is never taken: its summary would be longer than it is.
 */
async function fitResult(result: Result, run: LayerContext): Promise<Result> {
  let next = result;
  // Texts the store refused (a full disk): they stay, with their note, and are not tried again.
  const refused = new Set<ContentBlock>();
  while (overResultLimit(next, run.settings)) {
    const content = next.content ?? [];
    let longest = -1;
    for (const [index, block] of content.entries()) {
      if (block.type !== 'text' || isNote(block) || refused.has(block) || belowFloor(block.text, run.settings))
        continue;
      if (longest === -1 || block.text.length > (content[longest] as TextContent).text.length) longest = index;
    }
    if (longest === -1) break;
    const replacement = await storeText(content[longest] as TextContent, `content[${longest}]`, run);
    if (!replacement) break;
    if (replacement.includes(content[longest])) refused.add(content[longest]);
    next = { ...next, content: [...content.slice(0, longest), ...replacement, ...content.slice(longest + 1)] };
  }
  return next;
}

/**
 * structuredContent over the limit. Servers send their structured result as text too (the spec asks
 * them to), so when a text block carries the same document, or one of its strings, that text is the
 * payload: stored once, its block announces it, structuredContent points at it. Then the longest strings
 * are stored one by one, each replaced by its artifact URI (a string stays a string, so the tool's output
 * schema still holds), until the document fits; only one that still does not is stored whole and replaced
 * by a reference (output-schema.ts widens the root of schemas that allow that). With a limit of 0 (mode
 * file) nothing can stay, so the document is stored whole.
 */
async function storeStructured(
  result: Result,
  json: string,
  limit: number,
  storedTexts: Set<string>,
  run: LayerContext,
): Promise<Result> {
  const structured = result.structuredContent as object;
  const sameDocument = [...storedTexts].find((text) => sameJson(text, json));
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
  const shortest = Math.max(MIN_STORED_STRING, run.settings.minOffloadBytes);
  for (const { path, text, inText } of candidateStrings(structured, limit, storedTexts, shortest)) {
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
    const whole = next === structured ? json : stringifyJson(next);
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

/** Below this a string is not worth a file: its URI would be about as long (minOffloadBytes may ask for more). */
const MIN_STORED_STRING = 200;

/**
 * The strings of the document a text block carries whole when over the limit (the same payload twice:
 * stored once), then, unless the limit is 0, every other string worth storing; longest first.
 */
function candidateStrings(
  doc: unknown,
  limit: number,
  carried: Set<string>,
  shortest: number,
): { path: JsonPath; text: string; inText: boolean }[] {
  const found: { path: JsonPath; text: string; inText: boolean }[] = [];
  findStringsDeep(doc, (text, place) => {
    const inText = carried.has(text);
    if (inText || (limit > 0 && text.length >= shortest)) found.push({ path: place.path(), text, inText });
    return true;
  });
  return found.sort((a, b) => Number(b.inText) - Number(a.inText) || b.text.length - a.text.length);
}

async function storeText(block: TextContent, source: string, run: LayerContext): Promise<ContentBlock[] | undefined> {
  const { text } = block;
  const original = run.blobs.restoreInlaid(originalText(block));
  const outcome = await run.save({ data: { text: original }, mimeType: textMimeType(original), source });
  if (outcome.ok !== true) return placeOutcome(outcome, [block], `a text of ${text.length} characters`, run.announced);
  const blocks = announce(outcome.extraction, run.announced);
  if (!blocks.length) return [note(`[stored as ${outcome.extraction.record.uri}]`)];
  if (run.settings.previewChars <= 0) return blocks;
  const { preview, truncated } = headAndTail(text, run.settings.previewChars);
  return [blocks[0], note(`Preview${truncated ? ' (its start and its end)' : ''}:\n${preview}`), ...blocks.slice(1)];
}

/** Whether a text is the JSON document `json` is the compact form of. */
function sameJson(text: string, json: string): boolean {
  const start = text.trimStart()[0];
  if (start !== '{' && start !== '[') return false;
  try {
    return stringifyJson(parseJson(text)) === json;
  } catch {
    return false;
  }
}

function reference(extraction: Extraction): Record<string, unknown> {
  return referenceTo(extraction) as unknown as Record<string, unknown>;
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
