import { mapContent } from '../blocks.js';
import type { Layer, LayerContext, Result } from '../types.js';

/**
 * Error results stay inline, so the model sees what went wrong; only a huge one is cut, and its
 * whole text is stored so nothing is lost.
 */
export const errorLimitLayer: Layer = {
  name: 'error-limit',
  applies: (result, settings) =>
    (result.content ?? []).some((b) => b.type === 'text' && b.text.length > settings.errorLimit),
  run: cutLongErrors,
};

async function cutLongErrors(result: Result, run: LayerContext): Promise<Result> {
  const limit = run.settings.errorLimit;
  return mapContent(result, async (block, index) => {
    if (block.type !== 'text' || block.text.length <= limit) return undefined;
    const outcome = await run.save({ data: { text: block.text }, mimeType: 'text/plain', source: `content[${index}]` });
    if (outcome.ok === 'dry-run' || outcome.ok === 'invalid') return undefined;
    const { record, link } = outcome.ok ? outcome.extraction : {};
    const where = record
      ? ` The whole text is ${link?.hidePath ? `at ${link.url}` : `in ${record.path}`} (${record.uri}).`
      : '';
    return [
      {
        ...block,
        text: `${block.text.slice(0, limit)}\n… [error cut at ${limit} of ${block.text.length} characters.${where}]`,
      },
    ];
  });
}
