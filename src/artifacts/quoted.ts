/** The most of a client's value an artifact tool's error or header quotes: enough to recognize it, never pages. */
const QUOTED_CHARS = 200;

/** `value` whole when short, else its start and how long it is (the relay cuts names so: relay/param-text.ts). */
export function clipped(value: string): string {
  return value.length <= QUOTED_CHARS ? value : `${value.slice(0, QUOTED_CHARS)}… (${value.length} characters)`;
}

/** `value` JSON-quoted, as an error message quotes it: whole when short, else its start and how long it is. */
export function quoted(value: string): string {
  return value.length <= QUOTED_CHARS
    ? JSON.stringify(value)
    : `${JSON.stringify(value.slice(0, QUOTED_CHARS))}… (${value.length} characters)`;
}

/** An error text cut as an answer is: at `limit` characters, with a note saying so. */
export function boundedError(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… [error cut at ${limit} of ${text.length} characters]`;
}
