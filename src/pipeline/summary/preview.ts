/**
 * The start of a long text, for a summary or a truncated result: cut at a line end when one is near the
 * limit, so the model does not see half a line, and marked so it knows more exists.
 */

// A line end in the last 20% of the allowance is "near"; further back we would throw away too much.
const NEAR_FRACTION = 0.2;

/**
 * At most `maxChars` of `text` (never splitting a surrogate pair), followed by `… [N more characters]` when
 * anything was left out. The marker is not counted in `maxChars`.
 */
export function previewText(text: string, maxChars: number): { preview: string; truncated: boolean } {
  const limit = Math.max(0, Math.floor(maxChars));
  if (text.length <= limit) return { preview: text, truncated: false };

  let cut = limit;
  const lineEnd = text.lastIndexOf('\n', limit);
  const nearLineEnd = lineEnd > 0 && lineEnd >= limit - Math.ceil(limit * NEAR_FRACTION);
  if (nearLineEnd) {
    cut = text[lineEnd - 1] === '\r' ? lineEnd - 1 : lineEnd;
  } else if (cut > 0 && isHighSurrogate(text.charCodeAt(cut - 1))) {
    cut--;
  }
  const kept = text.slice(0, cut);
  const more = text.length - cut;
  const marker = `… [${more} more character${more === 1 ? '' : 's'}]`;
  return { preview: nearLineEnd ? `${kept}\n${marker}` : `${kept}${marker}`, truncated: true };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
