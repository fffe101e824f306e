import { isFullyBase64 } from './detect/base64.js';

/**
 * The bytes of a base64 string (standard or URL-safe alphabet, line breaks allowed), or undefined
 * if it is not valid base64: never garbage bytes.
 */
export function decodeBase64Strict(value: string): Buffer | undefined {
  if (!isFullyBase64(value)) return undefined;
  return Buffer.from(value, 'base64');
}
