import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { Extraction, Result } from './types.js';

/**
 * The blocks that stand in for an extracted payload: a summary a model can act on, and a
 * resource_link a client can open. Each artifact is summarised once per result; a repeat of the
 * same bytes in the content leaves a short marker, so no block vanishes without a trace.
 */
export function announce(extraction: Extraction, announced: Set<string>, markRepeat = true): ContentBlock[] {
  if (announced.has(extraction.record.sha256)) {
    return markRepeat ? [{ type: 'text', text: `[the same file again: ${extraction.record.uri}]` }] : [];
  }
  announced.add(extraction.record.sha256);
  const { record } = extraction;
  return [
    { type: 'text', text: extraction.summary },
    {
      type: 'resource_link',
      uri: record.uri,
      name: record.filename ?? record.id.split('/').pop()!,
      mimeType: record.mimeType,
      size: record.size,
    },
  ];
}

/**
 * A note put before a payload that could not be stored. The payload itself stays in the result:
 * the proxy never loses data, it only says why it could not take it out of the context.
 */
export function failureText(what: string, message: string): string {
  return `[mcp-offload: ${what.replace(/\s+/g, ' ')} could not be stored and is passed on inline: ${message}]`;
}

export function failureNote(what: string, message: string): ContentBlock {
  return { type: 'text', text: failureText(what, message) };
}

/**
 * Rewrites a result's content block by block: `replace` answers the blocks to put in a block's
 * place, or undefined to keep it. The result is the same object when no block was replaced.
 */
export async function mapContent(
  result: Result,
  replace: (block: ContentBlock, index: number) => Promise<ContentBlock[] | undefined>,
): Promise<Result> {
  if (!Array.isArray(result.content)) return result;
  let changed = false;
  const content: ContentBlock[] = [];
  for (const [index, block] of result.content.entries()) {
    const replacement = await replace(block, index);
    if (replacement) changed = true;
    content.push(...(replacement ?? [block]));
  }
  return changed ? { ...result, content } : result;
}
