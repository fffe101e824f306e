import { isPlainObject } from '../config/pointer.js';
import { binaryMinLength, dumpChars, limitOf, type PipelineSettings } from '../pipeline/settings.js';
import type { Result } from '../pipeline/types.js';
import { jsonText } from '../wire/json.js';

/** The one string under minBinaryLength that still makes the binary-strings layer look (an ABP download). */
const REFERENCE_KEY = '"downloadUrl"';

/** The most bytes one character of a text can take in the result's JSON (a control character, `\u001f`). */
const MAX_JSON_BYTES_PER_CHAR = 6;

/** A generous bound on a text block's JSON apart from its text (`{"type":"text","text":""}` and a comma). */
const BLOCK_JSON_BYTES = 32;

/** A generous bound on the result's JSON apart from its blocks (`{"content":[]}`, `"isError":false`). */
const RESULT_JSON_BYTES = 64;

/** A generous bound on `,"resultType":"complete"`. */
const RESULT_TYPE_JSON_BYTES = 32;

/** A generous bound on `,"_meta":` before the JSON of its value. */
const META_KEY_JSON_BYTES = 16;

/**
 * Whether the result pipeline certainly returns this result as it is, told from a quick look that never
 * serializes or scans its content: a result of text blocks only, each too short for any layer to look at (under
 * the length where binary strings are examined, within the dump, line and error limits), whose JSON cannot
 * exceed the client's result limit, with no transformer or field rule in the settings and no payload kept
 * as bytes. The 2026-07-28 revision's `resultType: "complete"` and a `_meta` object (the server's identity, a trace
 * id), which no layer reads, count only towards that limit (a `_meta` by its JSON). Anything else (other blocks,
 * structuredContent, fields it does not know, a setting it does not know how to bound) is "maybe touched", and the
 * pipeline decides. `settings` are the call's, after forClient.
 *
 * It must never say "untouched" for a result a layer would rewrite: test/unit/untouched.test.ts holds it to
 * the pipeline itself over the pipeline's own fixtures.
 */
export function surelyUntouched(result: Result, settings: PipelineSettings, payloadsAsBytes: number): boolean {
  if (settings.mode === 'passthrough') return true;
  if (settings.mode !== 'auto' || payloadsAsBytes > 0) return false;
  if (settings.transform !== undefined || settings.fields.length > 0) return false;
  const { content } = result;
  if (!Array.isArray(content)) return false;
  let besides = 0;
  for (const key in result) {
    if (key === 'content' || key === 'isError') continue;
    const value = result[key];
    if (key === 'resultType' && value === 'complete') besides += RESULT_TYPE_JSON_BYTES;
    else if (key === '_meta' && isPlainObject(value))
      besides += META_KEY_JSON_BYTES + Buffer.byteLength(jsonText(value));
    else return false;
  }
  const maxLines = limitOf(settings.lineLimit, 0);
  const longest = Math.min(
    result.isError ? settings.errorLimit : Math.min(binaryMinLength(settings) - 1, dumpChars(settings)),
    maxLines > 0 ? maxLines : Infinity,
  );
  let chars = 0;
  for (const block of content as unknown[]) {
    if (typeof block !== 'object' || block === null) return false;
    const { type, text } = block as { type?: unknown; text?: unknown };
    if (type !== 'text' || typeof text !== 'string' || text.length > longest) return false;
    if (!result.isError && text.includes(REFERENCE_KEY)) return false;
    for (const key in block) if (key !== 'type' && key !== 'text') return false;
    chars += text.length;
  }
  const resultLimit = limitOf(settings.resultLimit, 0);
  return (
    resultLimit === 0 ||
    MAX_JSON_BYTES_PER_CHAR * chars + BLOCK_JSON_BYTES * content.length + RESULT_JSON_BYTES + besides <= resultLimit
  );
}
