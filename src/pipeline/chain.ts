import { binaryStringsLayer } from './layers/binary-strings.js';
import { errorLimitLayer } from './layers/error-limit.js';
import { fieldRulesLayer } from './layers/field-rules.js';
import { sizeLimitLayer } from './layers/size-limit.js';
import { transformLayer } from './layers/transform.js';
import { typedContentLayer } from './layers/typed-content.js';
import type { PipelineSettings } from './settings.js';
import type { Layer, Result } from './types.js';

/**
 * The layers a successful result passes, in this order, in modes auto and file alike (mode file is a
 * set of settings, see settings.ts):
 * 1. transform: a user's own code sees the result as the upstream sent it, and what it returns is
 *    handled by the rest like any result;
 * 2. field rules: a field a rule names is stored with the rule's type, name and summary, before any
 *    guess could take it;
 * 3. typed content: image, audio and blob blocks say what they are, nothing needs guessing;
 * 4. binary hidden in strings: what is left of JSON and text is searched for payloads;
 * 5. the size net last: it sees only the text the others left, so no payload is stored twice.
 */
const RESULT_LAYERS: readonly Layer[] = [
  transformLayer,
  fieldRulesLayer,
  typedContentLayer,
  binaryStringsLayer,
  sizeLimitLayer,
];

/** Error results stay inline, so the model sees what went wrong; only a huge one is cut. */
const ERROR_LAYERS: readonly Layer[] = [errorLimitLayer];

/** The chain for this result: none in mode passthrough. */
export function chainFor(result: Result, settings: PipelineSettings): readonly Layer[] {
  if (settings.mode === 'passthrough') return [];
  return result.isError ? ERROR_LAYERS : RESULT_LAYERS;
}
