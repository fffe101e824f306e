/**
 * Finding base64-encoded binary files inside strings. A string is called binary only when its decoded start
 * carries a known magic signature (via `sniff`), so hashes, tokens, IDs and prose never are: the signature is
 * what keeps false positives out, the alphabet checks only keep the cost down.
 */
import { sniff } from '../../artifacts/mime.js';
import { isBinaryMimeType } from '../../artifacts/mime.js';
import { decodeBase64Prefix, isFullyBase64, mightBeBase64 } from '../../codec/base64.js';

export interface DetectedBinary {
  mimeType: string;
  ext: string;
}

/**
 * The file type of a string that is base64 of a binary file, else undefined. Steps, cheapest first: sampled
 * alphabet check, decode of the first 4100 bytes, magic-byte sniff (must be a binary type: a sniffed XML or
 * text is not hidden binary), then a full validation of the string. Never throws.
 */
export async function detectBase64Binary(
  s: string,
  minLength = 1000,
  validate = true,
): Promise<DetectedBinary | undefined> {
  try {
    if (!mightBeBase64(s, minLength)) return undefined;
    const prefix = decodeBase64Prefix(s);
    if (prefix.length === 0) return undefined;
    const type = await sniff(prefix);
    if (!type || !isBinaryMimeType(type.mimeType)) return undefined;
    if (validate && !isFullyBase64(s)) return undefined;
    return { mimeType: type.mimeType, ext: type.ext };
  } catch {
    // A sniffer failure on malformed bytes means "no recognizable signature", not an error for the caller.
    return undefined;
  }
}
