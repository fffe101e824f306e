import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { downloadReference, findAbpPayloads, type AbpPayload } from '../detect/abp-shapes.js';
import { base64Data } from '../decode.js';
import { setAtPath } from '../detect/walk.js';
import { announce, failureNote } from '../blocks.js';
import { parseJsonText } from '../json-docs.js';
import { referenceTo } from '../reference.js';
import { textMimeType } from '../text-kind.js';
import type { Layer, LayerContext, Payload, Result } from '../types.js';
import { typedContentLayer } from './typed-content.js';

/**
 * Mode `file`, the ABP bridge's data flow: every successful result goes to a file and the model
 * gets its path and a summary. BinaryData found at the top of the result's data or one level down
 * (and text declared `encoding: 'utf-8'`, saved as a file of its own type) is decoded and saved, its
 * sibling fields shown as metadata; a BinaryDataReference is downloaded;
 * anything else is saved as JSON (or as text when it is not JSON). Errors never reach this layer.
 */
export const fileModeLayer: Layer = async (result, run) => {
  const content = Array.isArray(result.content) ? result.content : [];
  const texts = content.filter((b): b is Extract<ContentBlock, { type: 'text' }> => b.type === 'text');
  const others = content.filter((b) => b.type !== 'text');
  const structured = isObject(result.structuredContent) ? result.structuredContent : undefined;
  const doc = structured ?? (texts.length === 1 ? parseJsonText(texts[0].text) : undefined);

  const blocks: ContentBlock[] = [];
  let structuredContent = result.structuredContent;
  if (doc !== undefined) {
    const payloads = findAbpPayloads(doc, 1, { declaredText: true });
    const saved = payloads.length ? await saveAbpPayloads(payloads, run, blocks) : undefined;
    if (saved) {
      if (structured) structuredContent = replaceAt(structured, saved) as Result['structuredContent'];
    } else {
      const outcome = await run.save({ data: { text: JSON.stringify(doc, null, 2) }, mimeType: 'application/json', source: 'result' });
      if (outcome.ok !== true) return outcome.ok === false ? withNote(result, 'the result', outcome.message) : result;
      blocks.push(...announce(outcome.extraction, run.announced));
      if (structured) structuredContent = referenceTo(outcome.extraction) as unknown as Result['structuredContent'];
    }
  } else if (texts.length) {
    const text = texts.map((t) => t.text).join('\n');
    const outcome = await run.save({ data: { text }, mimeType: textMimeType(text), source: 'result' });
    if (outcome.ok !== true) return outcome.ok === false ? withNote(result, 'the result', outcome.message) : result;
    blocks.push(...announce(outcome.extraction, run.announced));
  } else if (!others.length) {
    return result;
  }

  const rest = others.length ? ((await typedContentLayer({ content: others }, run)).content as ContentBlock[]) : [];
  return { ...result, content: [...blocks, ...rest], ...(structuredContent !== undefined ? { structuredContent } : {}) };
};

/** Saves each payload; returns the references to put in their place, or undefined if none was saved. */
async function saveAbpPayloads(
  payloads: AbpPayload[],
  run: LayerContext,
  blocks: ContentBlock[],
): Promise<{ path: (string | number)[]; value: unknown }[] | undefined> {
  const replacements: { path: (string | number)[]; value: unknown }[] = [];
  for (const found of payloads) {
    const source = `data${found.path.map((k) => `.${k}`).join('')}`;
    const payload = await payloadOf(found, source, run);
    if (typeof payload === 'string') {
      blocks.push({ type: 'text', text: payload });
      continue;
    }
    const outcome = await run.save(payload);
    if (outcome.ok === true) {
      blocks.push(...announce(outcome.extraction, run.announced));
      replacements.push({ path: found.path, value: referenceTo(outcome.extraction) });
    } else if (outcome.ok === false) {
      blocks.push(failureNote(`the ${found.value.mimeType} at ${source}`, outcome.message));
    } else if (outcome.ok === 'invalid' && payload.invalidNote) {
      blocks.push({ type: 'text', text: payload.invalidNote });
    }
  }
  return replacements.length || blocks.length ? replacements : undefined;
}

async function payloadOf(found: AbpPayload, source: string, run: LayerContext): Promise<Payload | string> {
  const metadata = Object.keys(found.metadata).length ? found.metadata : undefined;
  if (found.kind === 'binary') {
    const { content, mimeType, encoding, filename } = found.value;
    if (encoding === 'utf-8') return { data: { text: content }, mimeType, filename, metadata, source };
    const invalidNote = `[mcp-offload: the ${mimeType} content at ${source} is not valid base64; nothing was saved]`;
    const data = base64Data(content);
    return data ? { data, invalidNote, mimeType, filename, metadata, source } : invalidNote;
  }
  try {
    const { bytes, mimeType } = await downloadReference(found.value, run.settings.download);
    return { data: { bytes }, mimeType, filename: found.value.filename, metadata, source };
  } catch (error) {
    return `Download failed: ${found.value.downloadUrl}\nError: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function replaceAt(doc: Record<string, unknown>, replacements: { path: (string | number)[]; value: unknown }[]): unknown {
  let next: unknown = doc;
  for (const { path, value } of replacements) next = path.length === 0 ? value : setAtPath(next, path, value);
  return next;
}

function withNote(result: Result, what: string, message: string): Result {
  return { ...result, content: [failureNote(what, message), ...(result.content ?? [])] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
