import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { Layer } from '../types.js';

/**
 * Error results stay inline, so the model sees what went wrong; only a huge one is cut, and its
 * whole text is stored so nothing is lost.
 */
export const errorLimitLayer: Layer = async (result, run) => {
  if (!Array.isArray(result.content)) return result;
  const limit = run.settings.errorLimit;
  let changed = false;
  const content: ContentBlock[] = [];
  for (const [index, block] of result.content.entries()) {
    if (block.type !== 'text' || block.text.length <= limit) {
      content.push(block);
      continue;
    }
    const outcome = await run.save({ data: { text: block.text }, mimeType: 'text/plain', source: `content[${index}]` });
    if (outcome.ok === 'dry-run') {
      content.push(block);
      continue;
    }
    const where = outcome.ok ? ` The whole text is in ${outcome.extraction.record.path} (${outcome.extraction.record.uri}).` : '';
    content.push({ ...block, text: `${block.text.slice(0, limit)}\n… [error cut at ${limit} of ${block.text.length} characters.${where}]` });
    changed = true;
  }
  return changed ? { ...result, content } : result;
};
