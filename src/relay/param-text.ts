import type { Frame } from '../wire/frame.js';
import { textOf } from '../wire/json.js';

/** The most of a client's value an error message quotes: enough to recognize it, never pages of it. */
const QUOTED_CHARS = 200;

/**
 * A value of `frame` as the text its sender wrote. A string literal of 256 KiB or more that a stdio reader kept aside
 * as bytes stands in the parsed message as a marker of the proxy's own (src/wire/literal-cutter.ts), which only its
 * frame can read back: here it is, so a lookup sees the real name and no message the proxy makes carries the marker.
 */
export function textIn(frame: Frame, value: unknown): string {
  return frame.blobs.view(value)?.text() ?? textOf(value);
}

/** `text` as an error message quotes it: whole when short, else its start and how long it is. */
export function quoted(text: string): string {
  return text.length <= QUOTED_CHARS ? text : `${text.slice(0, QUOTED_CHARS)}… (${text.length} characters)`;
}
