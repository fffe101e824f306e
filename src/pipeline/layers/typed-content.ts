import type { ContentBlock } from '@modelcontextprotocol/server';
import { base64Data, base64DecodedSize, dataSize } from '../payload-data.js';
import type { Blobs } from '../../wire/blobs.js';
import { inlineChars, type PipelineSettings } from '../settings.js';
import { mapContent, note, placeOutcome } from '../blocks.js';
import { fitsVision, imagePreview } from '../image-preview.js';
import type { Extraction, Layer, LayerContext, Payload } from '../types.js';

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
  run: (result, run) => mapContent(result, (block, index) => replace(block as Block, index, run)),
};

/** Whether the block is one this layer stores; decides on sizes (and an image's first bytes) alone. */
function wouldStore(block: Block, settings: PipelineSettings, blobs: Blobs): boolean {
  if (block.type === 'image' && typeof block.data === 'string')
    return !fitsVision(blobs.resolve(block.data), settings.keepInline);
  if (block.type === 'audio' && typeof block.data === 'string') {
    const limit = settings.keepInline.audioMaxBytes;
    return !(limit > 0 && base64DecodedSize(blobs.resolve(block.data)) <= limit);
  }
  if (block.type !== 'resource' || typeof block.resource !== 'object' || block.resource === null) return false;
  const resource = block.resource as { blob?: unknown; text?: unknown };
  return (
    typeof resource.blob === 'string' ||
    (typeof resource.text === 'string' && resource.text.length > inlineChars(settings))
  );
}

async function replace(block: Block, index: number, run: LayerContext): Promise<ContentBlock[] | undefined> {
  if (!wouldStore(block, run.settings, run.blobs)) return undefined;
  const source = `content[${index}]`;
  if (block.type === 'image' || block.type === 'audio') {
    return storeBase64(
      run,
      block,
      block.data as string,
      { mimeType: block.mimeType as string | undefined, source },
      `${block.type} block`,
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
  if (typeof resource.blob === 'string') return storeBase64(run, block, resource.blob, common, 'embedded resource');
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
): Promise<ContentBlock[] | undefined> {
  const data = base64Data(run.blobs.resolve(base64));
  const outcome = data && (await run.save({ ...payload, data }));
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
    ? withPreview(blocks, outcome!.extraction, run)
    : blocks;
}

/** The summary, then the image scaled down for the model to see, then the link to the full one. */
async function withPreview(blocks: ContentBlock[], extraction: Extraction, run: LayerContext): Promise<ContentBlock[]> {
  // A repeat of an image already shown is a one-line marker: its preview is above.
  if (!blocks.some((block) => block.type === 'resource_link')) return blocks;
  const [summary, ...rest] = blocks;
  const source = run.imageSource ? await run.imageSource(extraction.record) : extraction.record.path;
  const preview = summary && source !== undefined && (await imagePreview(source, run.settings.keepInline));
  if (!preview) return blocks;
  const { width, height } = extraction.record.facts;
  const from = typeof width === 'number' && typeof height === 'number' ? ` (the file is ${width}x${height})` : '';
  return [
    summary,
    note(`Shown below scaled down to ${preview.width}x${preview.height}${from}.`),
    { type: 'image', data: preview.data, mimeType: preview.mimeType },
    ...rest,
  ];
}
