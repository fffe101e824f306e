import type { ContentBlock, TextContent } from '@modelcontextprotocol/server';
import type { Extraction, Result, SaveOutcome } from './types.js';
import type { ArgumentRefs } from './settings.js';

/** Text blocks the pipeline wrote (summaries, notes, previews): no later layer stores or rewrites them. */
const ownBlocks = new WeakSet<ContentBlock>();

/** A text block of the pipeline's own. */
export function note(text: string): TextContent {
  const block: TextContent = { type: 'text', text };
  ownBlocks.add(block);
  return block;
}

export function isNote(block: ContentBlock): boolean {
  return ownBlocks.has(block);
}

/**
 * The line after a text whose payloads were replaced in place, so nobody takes the text for the
 * original: with `restore`, sending it back puts them back; otherwise it is not the original.
 */
export function standInNote(count: number, argumentRefs: ArgumentRefs): TextContent {
  const what =
    count === 1 ? '1 embedded payload in the text above is' : `${count} embedded payloads in the text above are`;
  return note(
    argumentRefs === 'restore'
      ? `[mcp-offload: ${what} shown as an artifact:// stand-in; sent back through mcp-offload in a tool call, edited or not, the text gets the originals back byte for byte]`
      : `[mcp-offload: ${what} shown as an artifact:// stand-in; the text above is not the original, do not write it back as it is]`,
  );
}

/** The upstream's text of a block a layer rewrote (payloads replaced in place), for the size net to store. */
const originals = new WeakMap<ContentBlock, string>();

/** `block` with `text` in place of its text; the upstream's text stays known (see originalText). */
export function rewrittenText(block: TextContent, text: string): TextContent {
  const next: TextContent = { ...block, text };
  originals.set(next, originals.get(block) ?? block.text);
  return next;
}

/** What the upstream sent in this text block, before any layer rewrote it. */
export function originalText(block: TextContent): string {
  return originals.get(block) ?? block.text;
}

/**
 * The blocks that stand in for an extracted payload: a summary a model can act on, and a
 * resource_link a client can open. Each artifact is summarized once per result; a repeat of the
 * same bytes in the content leaves a short marker, so no block vanishes without a trace.
 */
export function announce(extraction: Extraction, announced: Set<string>, markRepeat = true): ContentBlock[] {
  if (announced.has(extraction.record.sha256)) {
    return markRepeat ? [note(`[the same file again: ${extraction.record.uri}]`)] : [];
  }
  announced.add(extraction.record.sha256);
  const { record } = extraction;
  return [
    note(extraction.summary),
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
  return note(failureText(what, message));
}

/**
 * What to tell the model when a payload was not stored: why it could not be (it stays inline), that it
 * was not the data it looked like (when the layer has words for that), or nothing (a dry run).
 */
export function outcomeNote(
  outcome: Exclude<SaveOutcome, { ok: true }>,
  what: string,
  invalidNote?: string,
): string | undefined {
  if (outcome.ok === false) return failureText(what, outcome.message);
  return outcome.ok === 'invalid' ? invalidNote : undefined;
}

/**
 * The blocks that take a payload's block (or blocks) place once storing it was tried: its summary and link
 * when stored; otherwise the original blocks, after a note when there is one; undefined when nothing
 * changes. The one place where outcomes become content.
 */
export function placeOutcome(
  outcome: SaveOutcome,
  original: ContentBlock[],
  what: string,
  announced: Set<string>,
  invalidNote?: string,
): ContentBlock[] | undefined {
  if (outcome.ok === true) return announce(outcome.extraction, announced);
  const text = outcomeNote(outcome, what, invalidNote);
  return text === undefined ? undefined : [note(text), ...original];
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
