import type { ContentBlock } from '@modelcontextprotocol/server';
import { base64Data, base64DecodedSize, base64Stream, dataSize } from '../payload-data.js';
import type { Blobs } from '../../wire/blobs.js';
import { belowFloor, inlineChars, limitOf, type PipelineSettings } from '../settings.js';
import { mapContent, note, placeOutcome } from '../blocks.js';
import { fitsVision, imagePreview, type ImagePreview } from '../image-preview.js';
import { jsonBytes } from '../result-bytes.js';
import { findStringsDeep } from '../detect/walk.js';
import type { Extraction, Layer, LayerContext, Payload, Result } from '../types.js';

type Block = ContentBlock & Record<string, unknown>;

/**
 * Layer 3: the content kinds MCP itself marks as binary or large: image and audio blocks,
 * embedded resources with a blob, and embedded text resources over the inline limit.
 * resource_link blocks are already references and pass unchanged. Images a vision model can take
 * stay; a larger one is stored and shown scaled down beside its link (image-preview.ts).
 */
export const typedContentLayer: Layer = {
  name: 'typed-content',
  applies: (result, settings, blobs) =>
    (result.content ?? []).some((block) => wouldStore(block as Block, settings, blobs)),
  run: (result, run) => {
    const previewBytes = previewBudget(result, run);
    return mapContent(result, (block, index) => replace(block as Block, index, run, previewBytes));
  },
};

/**
 * Whether the block is one this layer stores; decides on sizes (and an image's first bytes) alone. A payload
 * under the floor (minOffloadBytes) stays: its summary and link would be as long as it is.
 */
function wouldStore(block: Block, settings: PipelineSettings, blobs: Blobs): boolean {
  const floor = settings.minOffloadBytes;
  if ((block.type === 'image' || block.type === 'audio') && typeof block.data === 'string') {
    const base64 = blobs.resolve(block.data);
    if (base64.length < floor) return false;
    if (block.type === 'image') return !fitsVision(base64, settings.keepInline) || overResultLimit(base64, settings);
    const limit = settings.keepInline.audioMaxBytes;
    return !(limit > 0 && base64DecodedSize(base64) <= limit);
  }
  if (block.type !== 'resource' || typeof block.resource !== 'object' || block.resource === null) return false;
  const resource = block.resource as { blob?: unknown; text?: unknown };
  if (typeof resource.blob === 'string') return blobs.lengthOf(resource.blob) >= floor;
  return (
    typeof resource.text === 'string' &&
    resource.text.length > inlineChars(settings) &&
    !belowFloor(resource.text, settings)
  );
}

/** An image the client would refuse as part of its result whatever the vision limits say (Claude Desktop: 1 MiB). */
function overResultLimit(base64: { length: number }, settings: PipelineSettings): boolean {
  const limit = limitOf(settings.resultLimit, 0);
  return limit > 0 && base64.length > limit;
}

/** Room an image's stand-ins take besides its preview: a summary (at most 2 KB), a note, a link, an `_meta` entry. */
const STAND_IN_BYTES = 3 * 1024;

/**
 * The base64 bytes each image preview of this result may take: previewMaxBytes, and within the client's
 * whole-result budget the room the rest of the result leaves, shared by the images to preview.
 */
function previewBudget(result: Result, run: LayerContext): number {
  const { previewMaxBytes, imageMaxBytes } = run.settings.keepInline;
  // No image larger than imageMaxBytes is shown, scaled down or not (0: none).
  const own = Math.min(previewMaxBytes, Math.floor(imageMaxBytes / 3) * 4);
  const limit = limitOf(run.settings.resultLimit, 0);
  const images = (result.content ?? []).filter(
    (block) => block.type === 'image' && wouldStore(block as Block, run.settings, run.blobs),
  );
  if (limit === 0 || images.length === 0) return own;
  const payloads = images.map((block) => (block as Block).data as string);
  const imageBytes = bytesOfCopies(result, payloads, run.blobs);
  const room = limit - (jsonBytes(result, run.blobs, payloads) - imageBytes) - images.length * STAND_IN_BYTES;
  return Math.max(0, Math.min(own, Math.floor(room / images.length)));
}

/**
 * The bytes of every string of the result that is one of `payloads`: the image blocks themselves, and their copies
 * elsewhere (a `structuredContent` that repeats `content`, as server-filesystem's `read_media_file` sends it). All of
 * them leave the result as the one artifact the payload is stored as.
 */
function bytesOfCopies(result: Result, payloads: readonly string[], blobs: Blobs): number {
  const lengths = new Set(payloads.map((payload) => blobs.lengthOf(payload)));
  let bytes = 0;
  // Iterative: a hostile upstream's deep structuredContent must not make the layer fail (the image would pass whole).
  findStringsDeep(result, (value) => {
    const length = blobs.lengthOf(value);
    if (lengths.has(length) && payloads.some((payload) => blobs.same(payload, value))) bytes += length;
    return true;
  });
  return bytes;
}

async function replace(
  block: Block,
  index: number,
  run: LayerContext,
  previewBytes: number,
): Promise<ContentBlock[] | undefined> {
  if (!wouldStore(block, run.settings, run.blobs)) return undefined;
  const source = `content[${index}]`;
  if (block.type === 'image' || block.type === 'audio') {
    return storeBase64(
      run,
      block,
      block.data as string,
      { mimeType: block.mimeType as string | undefined, source },
      `${block.type} block`,
      previewBytes,
    );
  }
  const resource = block.resource as { uri?: string; mimeType?: string; blob?: string; text?: string };
  const filename = resource.uri?.split(/[/\\]/).pop() || undefined;
  const common = {
    mimeType: resource.mimeType,
    filename,
    metadata: resource.uri ? { resourceUri: resource.uri } : undefined,
    source,
  };
  if (typeof resource.blob === 'string') return storeBase64(run, block, resource.blob, common, 'embedded resource', 0);
  const outcome = await run.save({
    ...common,
    data: { text: resource.text! },
    mimeType: resource.mimeType ?? 'text/plain',
  });
  return placeOutcome(outcome, [block], 'a large embedded text resource', run.announced);
}

async function storeBase64(
  run: LayerContext,
  original: ContentBlock,
  base64: string,
  payload: Omit<Payload, 'data'>,
  what: string,
  previewBytes: number,
): Promise<ContentBlock[] | undefined> {
  const value = run.blobs.resolve(base64);
  const streamed = typeof value === 'string' ? base64Stream(value) : undefined;
  let data = streamed ?? base64Data(value);
  let outcome = data && (await run.save({ ...payload, data }));
  // Line-wrapped base64 shows only part-way through a string's pieces: decoded whole, it is checked as such.
  if (streamed && outcome?.ok === 'invalid') {
    data = base64Data(value);
    outcome = data && (await run.save({ ...payload, data }));
  }
  if (!data || outcome?.ok === 'invalid') {
    // Not base64 after all: keep it, and say why in the log, rather than store garbage.
    run.log.warn({ source: payload.source }, `${what} does not hold valid base64; left as it is`);
    return undefined;
  }
  const size = dataSize(data);
  const blocks = placeOutcome(
    outcome!,
    [original],
    `this ${payload.mimeType ?? ''} ${what} (${size} bytes)`,
    run.announced,
  );
  return original.type === 'image' && outcome!.ok === true && blocks
    ? withPreview(blocks, outcome!.extraction, run, previewBytes)
    : blocks;
}

/** The summary, then the image's preview and what it shows, then the link to the full one. */
async function withPreview(
  blocks: ContentBlock[],
  extraction: Extraction,
  run: LayerContext,
  previewBytes: number,
): Promise<ContentBlock[]> {
  // A repeat of an image already shown is a one-line marker: its preview is above.
  if (!blocks.some((block) => block.type === 'resource_link')) return blocks;
  const [summary, ...rest] = blocks;
  const source = run.imageSource ? await run.imageSource(extraction.record) : extraction.record.path;
  const limits = { maxEdge: run.settings.keepInline.imageMaxEdge, maxBase64: previewBytes, of: extraction.record.uri };
  const preview = summary && source !== undefined && (await imagePreview(source, limits));
  if (!preview) return blocks;
  const { width, height } = extraction.record.facts;
  const size = typeof width === 'number' && typeof height === 'number' ? `${width}x${height}` : undefined;
  return [
    summary,
    note(previewNote(preview, size)),
    { type: 'image', data: preview.data, mimeType: preview.mimeType },
    ...rest,
  ];
}

/** What the preview shows of the file: all of it scaled down, or its first screenful. */
export function previewNote(preview: ImagePreview, size: string | undefined): string {
  const { part } = preview;
  const scaled = `${preview.width}x${preview.height}`;
  if (!part) return `Shown below scaled down to ${scaled}${size ? ` (the file is ${size})` : ''}.`;
  const where =
    part.side === 'top'
      ? `top ${part.pixels} px of the ${part.of} px tall`
      : `left ${part.pixels} px of the ${part.of} px wide`;
  return (
    `Shown below: the ${where} image${size ? ` (${size})` : ''}, the first of ${part.screens} screens, ` +
    `scaled to ${scaled}. The file holds the whole image.`
  );
}
