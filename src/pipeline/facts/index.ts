/**
 * Facts that help a model decide whether to open a stored file (dimensions, pages, lines and tokens, the
 * shape of a JSON document), computed from the bytes. Never throws: a file we cannot read gets fewer facts.
 */
import { readFile } from 'node:fs/promises';
import { essence as essenceOf, isTextMimeType } from '../../artifacts/mime.js';
import type { FactsWatcher, WrittenFile } from '../../artifacts/types.js';
import { imageFacts, imageFactsOfFile } from './image.js';
import { jsonOutline } from './json-outline.js';
import { PageCounter, pdfFacts, pdfFactsOrParsed } from './pdf.js';
import { csvFacts, decodeStart, textFacts } from './text.js';

export { estimateTokens } from './text.js';
export { describeJsonValue, jsonOutline } from './json-outline.js';

// JSON.parse of a very large document costs seconds and several times its size in memory; past this the
// outline is skipped (line and token counts are still given).
const MAX_JSON_OUTLINE_BYTES = 32 * 1024 * 1024;

function isJsonType(essence: string): boolean {
  return essence === 'application/json' || essence.endsWith('+json');
}

function looksLikeJson(bytes: Buffer): boolean {
  const start = decodeStart(bytes, 64).trimStart();
  return start.startsWith('{') || start.startsWith('[');
}

function outlineOf(bytes: Buffer): Record<string, unknown> | undefined {
  if (bytes.length > MAX_JSON_OUTLINE_BYTES) return undefined;
  try {
    return jsonOutline(JSON.parse(decodeStart(bytes, bytes.length)));
  } catch {
    return undefined; // not JSON after all (or NDJSON): the text facts still apply
  }
}

export async function factsFor(bytes: Buffer, mimeType: string): Promise<Record<string, unknown>> {
  try {
    const essence = essenceOf(mimeType);
    if (essence.startsWith('image/') && essence !== 'image/svg+xml') return imageFacts(bytes);
    if (essence === 'application/pdf') return pdfFacts(bytes);
    if (!isTextMimeType(essence)) return {};

    const facts: Record<string, unknown> = essence === 'image/svg+xml' ? imageFacts(bytes) : {};
    if (isJsonType(essence) || (essence.startsWith('text/') && looksLikeJson(bytes))) {
      const outline = outlineOf(bytes);
      if (outline) facts.outline = outline;
    }
    Object.assign(facts, textFacts(bytes));
    if (essence === 'text/csv' || essence === 'application/csv' || essence === 'text/tab-separated-values') {
      Object.assign(facts, csvFacts(bytes, essence === 'text/tab-separated-values' ? '\t' : ','));
    }
    return facts;
  } catch {
    return {}; // facts are a courtesy: a failure here must never fail storing the file
  }
}

/**
 * `factsFor` of a payload stored piece by piece, with the same answer: a PDF's pages are counted as
 * the pieces pass, an image's size is read from the head of the file (all of it only when the head
 * does not settle it), and text, whose facts need every byte, is read back whole.
 */
export function factsWatcher(mimeType: string): FactsWatcher {
  const essence = essenceOf(mimeType);
  const readAll = (file: WrittenFile) => readFile(file.path);
  if (essence.startsWith('image/') && essence !== 'image/svg+xml') {
    return courtesy({ add() {}, finish: (file) => imageFactsOfFile(file.head, file.size, () => readAll(file)) });
  }
  if (essence === 'application/pdf') {
    const counter = new PageCounter();
    const finish = (file: WrittenFile) => pdfFactsOrParsed(counter, file.head, () => readAll(file), file.size);
    return courtesy({ add: (piece) => counter.add(piece), finish });
  }
  if (!isTextMimeType(essence)) return { add() {}, finish: async () => ({}) };
  return courtesy({ add() {}, finish: async (file) => factsFor(await readAll(file), mimeType) });
}

/** A watcher that never fails the store: facts it cannot compute are left out. */
function courtesy(watcher: FactsWatcher): FactsWatcher {
  let failed = false;
  return {
    add(piece) {
      try {
        if (!failed) watcher.add(piece);
      } catch {
        failed = true;
      }
    },
    finish: async (file) => (failed ? {} : watcher.finish(file).catch(() => ({}))),
  };
}
