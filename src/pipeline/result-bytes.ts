import { byteLengthOf, type Blobs } from '../wire/blobs.js';
import { isExactNumber } from '../wire/json.js';

/** A string JSON writes as its characters between two quotes, one byte each: printable ASCII but `"` and `\`. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * The bytes of a value's JSON as it leaves the proxy: a payload kept as bytes counts as the literal it
 * stands for, not as its marker (wire/blobs.ts). Summed value by value, without writing the whole JSON: a result
 * holding a 13 MB base64 string cost a 13 MB JSON text and a UTF-8 count of it, twice per offload; now such a string
 * is one scan, and none for the strings in `base64`. Anything that is not plain JSON data (a toJSON, a Map) is
 * measured as before, by writing it.
 */
export function jsonBytes(value: unknown, blobs: Blobs, base64: readonly string[] = []): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    // A payload the caller knows is base64 (an image block's data): its JSON is its characters in quotes, unread.
    if (typeof item === 'string') bytes += base64.includes(item) ? blobs.lengthOf(item) + 2 : stringBytes(item, blobs);
    else if (item === null || typeof item === 'number' || typeof item === 'boolean')
      bytes += JSON.stringify(item).length;
    else if (isExactNumber(item)) bytes += item.rawJSON.length;
    else if (Array.isArray(item)) {
      bytes += 2 + Math.max(0, item.length - 1);
      for (const element of item) stack.push(absent(element) ? null : element);
    } else if (isJsonRecord(item)) {
      let members = 0;
      for (const key of Object.keys(item)) {
        const member = item[key];
        if (absent(member)) continue;
        bytes += (members++ === 0 ? 0 : 1) + stringBytes(key, blobs) + 1;
        stack.push(member);
      }
      bytes += 2;
    } else return written(value, blobs);
  }
  return bytes;
}

/**
 * A lower bound of jsonBytes, from lengths alone (no string is read): every character of a string is at least a
 * byte of its JSON, a kept payload at least its own bytes. Enough to tell that a rewrite is smaller than a result
 * holding a payload, without measuring the payload.
 */
export function jsonBytesAtLeast(value: unknown, blobs: Blobs): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') bytes += blobs.lengthOf(item) + 2;
    else if (Array.isArray(item)) {
      bytes += 2;
      for (const element of item) stack.push(element);
    } else if (isJsonRecord(item)) {
      bytes += 2;
      for (const key of Object.keys(item)) {
        if (absent(item[key])) continue;
        bytes += key.length + 3;
        stack.push(item[key]);
      }
    } else if (item === null || typeof item === 'number' || typeof item === 'boolean' || isExactNumber(item))
      bytes += 1;
    // Anything else may write as little as nothing: no bound is claimed.
    else if (!absent(item)) return 0;
  }
  return bytes;
}

function stringBytes(text: string, blobs: Blobs): number {
  if (PLAIN.test(text)) return text.length + 2;
  return written(text, blobs);
}

/** The bytes of the JSON written out (the way every value was measured before). */
function written(value: unknown, blobs: Blobs): number {
  return byteLengthOf(blobs.fill(JSON.stringify(value), true));
}

/** What JSON.stringify leaves out of an object and writes as null in an array. */
function absent(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/**
 * An object JSON writes member by member: a plain record (not an array, a class instance, a toJSON holder or a number
 * kept as text). Stricter than config/pointer.ts isPlainObject, which only tells objects from arrays.
 */
function isJsonRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || isExactNumber(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}
