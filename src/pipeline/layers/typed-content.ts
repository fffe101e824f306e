import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { base64Data, base64DecodedSize, dataSize } from '../decode.js';
import { inlineChars } from '../settings.js';
import { announce, failureNote, mapContent } from '../blocks.js';
import type { Layer, LayerContext } from '../types.js';

type Block = ContentBlock & Record<string, unknown>;

/**
 * Layer 3: the content kinds MCP itself marks as binary or large: image and audio blocks,
 * embedded resources with a blob, and embedded text resources over the inline limit.
 * resource_link blocks are already references and pass unchanged.
 */
export const typedContentLayer: Layer = async (result, run) => mapContent(result, (block, index) => replace(block as Block, index, run));

async function replace(block: Block, index: number, run: LayerContext): Promise<ContentBlock[] | undefined> {
  const source = `content[${index}]`;
  if ((block.type === 'image' || block.type === 'audio') && typeof block.data === 'string') {
    const limit = block.type === 'image' ? run.settings.keepInline.imageMaxBytes : run.settings.keepInline.audioMaxBytes;
    if (limit > 0 && base64DecodedSize(block.data) <= limit) return undefined;
    return store(run, block, block.data, block.mimeType as string | undefined, undefined, source, `${block.type} block`);
  }
  if (block.type === 'resource' && typeof block.resource === 'object' && block.resource !== null) {
    const resource = block.resource as { uri?: string; mimeType?: string; blob?: string; text?: string };
    const filename = resource.uri?.split(/[/\\]/).pop() || undefined;
    const metadata = resource.uri ? { resourceUri: resource.uri } : undefined;
    if (typeof resource.blob === 'string') {
      return store(run, block, resource.blob, resource.mimeType, filename, source, 'embedded resource', metadata);
    }
    if (typeof resource.text === 'string' && resource.text.length > inlineChars(run.settings)) {
      const outcome = await run.save({
        data: { text: resource.text },
        mimeType: resource.mimeType ?? 'text/plain',
        filename,
        metadata,
        source,
      });
      if (outcome.ok === 'dry-run' || outcome.ok === 'invalid') return undefined;
      if (!outcome.ok) return [failureNote('a large embedded text resource', outcome.message), block];
      return announce(outcome.extraction, run.announced);
    }
  }
  return undefined;
}

async function store(
  run: LayerContext,
  original: ContentBlock,
  base64: string,
  mimeType: string | undefined,
  filename: string | undefined,
  source: string,
  what: string,
  metadata?: Record<string, unknown>,
): Promise<ContentBlock[] | undefined> {
  const data = base64Data(base64);
  const outcome = data && (await run.save({ data, mimeType, filename, metadata, source }));
  if (!data || outcome?.ok === 'invalid') {
    // Not base64 after all: keep it, and say why, rather than store garbage.
    run.log.warn({ source }, `${what} does not hold valid base64; left as it is`);
    return undefined;
  }
  if (!outcome || outcome.ok === 'dry-run') return undefined;
  if (!outcome.ok) return [failureNote(`this ${mimeType ?? ''} ${what} (${dataSize(data)} bytes)`, outcome.message), original];
  return announce(outcome.extraction, run.announced);
}
