/**
 * One huge string literal kept as the bytes it arrived in (a JSON string without escapes is its own
 * UTF-8 text), read without ever joining them unless asked for the whole string.
 */
export class BlobView {
  constructor(
    private readonly segments: readonly Buffer[],
    /** The literal's length in bytes. */
    readonly length: number,
  ) {}

  /** The bytes in the pieces they arrived in: no copy. */
  pieces(): readonly Buffer[] {
    return this.segments;
  }

  /** The first `bytes` bytes as a string (latin1: base64 and ASCII read as they are), enough to sniff. */
  head(bytes: number): string {
    const head: Buffer[] = [];
    let taken = 0;
    for (const segment of this.segments) {
      if (taken >= bytes) break;
      head.push(segment.subarray(0, bytes - taken));
      taken += head[head.length - 1].length;
    }
    return Buffer.concat(head, taken).toString('latin1');
  }

  /** The string it stands for, exactly as the upstream sent it. */
  text(): string {
    return Buffer.concat(this.segments, this.length).toString('utf8');
  }
}

/** Whether a kept literal holds `needle` (ASCII), looking across the pieces' seams too. */
export function viewIncludes(view: BlobView, needle: string): boolean {
  const segments = view.pieces();
  const bytes = Buffer.from(needle, 'latin1');
  for (const [i, segment] of segments.entries()) {
    if (segment.includes(bytes)) return true;
    const next = segments[i + 1];
    if (
      next &&
      Buffer.concat([segment.subarray(-bytes.length + 1), next.subarray(0, bytes.length - 1)]).includes(bytes)
    )
      return true;
  }
  return false;
}
