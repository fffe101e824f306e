import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { announce, failureNote, mapContent } from '../blocks.js';
import { referenceTo } from '../reference.js';
import { inlineChars } from '../settings.js';
import { previewText } from '../summary/preview.js';
import { textMimeType } from '../text-kind.js';
import type { Layer, LayerContext } from '../types.js';

/**
 * Layer 5, the safety net: text still over the inline limit after the other layers is stored
 * (as .json, .csv, .md or .txt by its content) and replaced by a preview; so is a structuredContent
 * whose JSON is over the limit.
 */
export const sizeLimitLayer: Layer = async (result, run) => {
  const limit = inlineChars(run.settings);
  let next = result;

  if (typeof result.structuredContent === 'object' && result.structuredContent !== null) {
    const json = JSON.stringify(result.structuredContent);
    if (json.length > limit) {
      const outcome = await run.save({ data: { text: json }, mimeType: 'application/json', source: 'structuredContent' });
      if (outcome.ok === true) {
        next = {
          ...next,
          structuredContent: referenceTo(outcome.extraction) as unknown as Record<string, unknown>,
          content: [...(next.content ?? []), ...announce(outcome.extraction, run.announced)],
        };
      }
    }
  }

  return mapContent(next, async (block, index) =>
    block.type !== 'text' || block.text.length <= limit ? undefined : storeText(block.text, `content[${index}]`, run),
  );
};

async function storeText(text: string, source: string, run: LayerContext): Promise<ContentBlock[] | undefined> {
  const mimeType = textMimeType(text);
  const outcome = await run.save({ data: { text }, mimeType, source });
  if (outcome.ok === 'dry-run' || outcome.ok === 'invalid') return undefined;
  if (outcome.ok === false) return [failureNote(`a text of ${text.length} characters`, outcome.message), { type: 'text', text }];
  const { preview, truncated } = previewText(text, run.settings.previewChars);
  const blocks = announce(outcome.extraction, run.announced);
  if (!blocks.length) return [{ type: 'text', text: `[stored as ${outcome.extraction.record.uri}]` }];
  return [
    blocks[0],
    { type: 'text', text: `Preview${truncated ? ` (first ${preview.length} characters)` : ''}:\n${preview}` },
    ...blocks.slice(1),
  ];
}
