/**
 * JSON carried inside a JSON string: a text block whose text is `{"name":"report","content":"JVBERi0..."}`.
 * On the wire the outer literal is full of escapes (`{\"name\":\"report\",\"content\":\"JVBERi0...\"}`),
 * so it cannot be kept as one blob; but the inner document's long strings sit in it as plain runs of
 * bytes between escaped quotes. This finds those runs, so the cutter can keep each as a blob and inlay
 * its marker in the inner JSON instead: the text the line parser makes is then small, and the payload
 * never becomes a string.
 *
 * Only a run that is the whole content of an inner string value is taken: it follows an inner quote that
 * opens a string and ends at the inner quote that closes it, with no escape of either level in between,
 * and no `:` follows (a key stays a key). Anything unusual leaves the literal as it is.
 */

/** A run of the literal's content, as offsets into the concatenation of its parts. */
export interface InlayRun {
  start: number;
  end: number;
}

const BACKSLASH = 0x5c;
const QUOTE = 0x22;

/**
 * A held literal's content read as one sequence of bytes: its parts in memory, or the spool file it was written to
 * (held-literal.ts). The scan moves forward, so a file is read in windows, once.
 */
export interface LiteralBytes {
  readonly length: number;
  /** The byte at `offset`; -1 past the end. */
  byteAt(offset: number): number;
  /** Where the next backslash at or after `from` is; -1 when there is none. */
  indexOfBackslash(from: number): number;
  /** The bytes [start, end), as pieces. */
  slice(start: number, end: number): Buffer[];
}

/** The held parts of one literal, in memory. */
export class Parts implements LiteralBytes {
  readonly length: number;
  private readonly starts: number[] = [];

  constructor(readonly parts: readonly Buffer[]) {
    let at = 0;
    for (const part of parts) {
      this.starts.push(at);
      at += part.length;
    }
    this.length = at;
  }

  byteAt(offset: number): number {
    const i = this.partAt(offset);
    return i === -1 ? -1 : this.parts[i][offset - this.starts[i]];
  }

  indexOfBackslash(from: number): number {
    for (let i = Math.max(0, this.partAt(from)); i < this.parts.length; i++) {
      const local = this.parts[i].indexOf(BACKSLASH, Math.max(0, from - this.starts[i]));
      if (local !== -1) return this.starts[i] + local;
    }
    return -1;
  }

  /** The pieces of bytes [start, end), without copying. */
  slice(start: number, end: number): Buffer[] {
    const out: Buffer[] = [];
    for (let i = Math.max(0, this.partAt(start)); i < this.parts.length && this.starts[i] < end; i++) {
      const from = Math.max(0, start - this.starts[i]);
      const to = Math.min(this.parts[i].length, end - this.starts[i]);
      if (to > from) out.push(this.parts[i].subarray(from, to));
    }
    return out;
  }

  /** The part of the last look-up: the scan moves forward, so the next one is mostly in it. */
  private current = 0;

  private partAt(offset: number): number {
    if (offset < 0 || offset >= this.length) return -1;
    const i = this.current;
    if (offset >= this.starts[i] && offset < this.starts[i] + this.parts[i].length) return i;
    if (
      i + 1 < this.parts.length &&
      offset >= this.starts[i + 1] &&
      offset < this.starts[i + 1] + this.parts[i + 1].length
    ) {
      return (this.current = i + 1);
    }
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.starts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return (this.current = low);
  }
}

/** One escape of the outer literal: the inner character it stands for, and where the escape ends. */
function escapeAt(bytes: LiteralBytes, at: number): { char: number; end: number } | undefined {
  const letter = bytes.byteAt(at + 1);
  if (letter !== 0x75) return letter === -1 ? undefined : { char: letter, end: at + 2 }; // not \u
  let code = 0;
  for (let i = at + 2; i < at + 6; i++) {
    const digit = hexValue(bytes.byteAt(i));
    if (digit === -1) return undefined;
    code = code * 16 + digit;
  }
  return { char: code, end: at + 6 };
}

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}

/**
 * The runs of at least `minBytes` in a literal's content (escapes and all, as it arrived) that are
 * whole inner string values; empty when there is none or the content is not what it should be.
 */
export function findInlayRuns(parts: readonly Buffer[], minBytes: number): InlayRun[] {
  const check = new LongRunCheck(minBytes);
  for (const part of parts) check.add(part);
  return check.possible ? findRuns(new Parts(parts), minBytes) : [];
}

/** `findInlayRuns` of content that passed LongRunCheck: the walk from escape to escape. */
export function findRuns(bytes: LiteralBytes, minBytes: number): InlayRun[] {
  const runs: InlayRun[] = [];
  let inString = false;
  /** The previous inner character was an inner backslash. */
  let escaped = false;
  /** Where the inner string opened by the previous escape begins; -1 when the previous escape opened none. */
  let openedAt = -1;
  let position = 0;
  for (;;) {
    const at = bytes.indexOfBackslash(position);
    const plainEnd = at === -1 ? bytes.length : at;
    // Plain bytes are inner characters: the first one is what an inner backslash escaped.
    if (plainEnd > position) escaped = false;
    if (at === -1) return runs;
    const escape = escapeAt(bytes, at);
    if (!escape) return [];
    const opened = openedAt;
    openedAt = -1;
    if (escaped) {
      escaped = false;
    } else if (escape.char === BACKSLASH) {
      escaped = inString;
    } else if (escape.char === QUOTE && !inString) {
      inString = true;
      openedAt = escape.end;
    } else if (escape.char === QUOTE) {
      inString = false;
      if (opened !== -1 && at - opened >= minBytes && isValueEnd(bytes, escape.end))
        runs.push({ start: opened, end: at });
    }
    position = escape.end;
  }
}

/**
 * Whether some stretch without a backslash is `minBytes` long, told from the parts as they arrive: two searches
 * per part, so a big JSON text of small strings (millions of escapes, no long run) is not walked escape by escape.
 * A part no longer than `minBytes` cannot hold such a stretch between two of its own backslashes.
 */
export class LongRunCheck {
  private sinceBackslash = 0;
  possible = false;

  constructor(private readonly minBytes: number) {}

  add(part: Buffer): void {
    if (this.possible) return;
    if (part.length > this.minBytes) {
      this.possible = true;
      return;
    }
    const first = part.indexOf(BACKSLASH);
    if (first === -1) {
      this.sinceBackslash += part.length;
    } else {
      if (this.sinceBackslash + first >= this.minBytes) this.possible = true;
      this.sinceBackslash = part.length - 1 - part.lastIndexOf(BACKSLASH);
    }
    if (this.sinceBackslash >= this.minBytes) this.possible = true;
  }
}

/** What follows a closed inner string: a `,`, `}`, `]` or the end (a value), after inner whitespace. */
function isValueEnd(bytes: LiteralBytes, from: number): boolean {
  let at = from;
  for (;;) {
    const byte = bytes.byteAt(at);
    if (byte === -1) return true;
    if (byte === 0x20) at++;
    else if (byte === BACKSLASH && [0x6e, 0x72, 0x74].includes(bytes.byteAt(at + 1)))
      at += 2; // \n \r \t
    else return byte === 0x2c || byte === 0x7d || byte === 0x5d;
  }
}

/** The literal's content with each run replaced by what `replace` gives for its [start, end). */
export function inlay(
  bytes: LiteralBytes,
  runs: readonly InlayRun[],
  replace: (start: number, end: number) => Buffer,
): Buffer[] {
  const out: Buffer[] = [];
  let last = 0;
  for (const { start, end } of runs) {
    out.push(...bytes.slice(last, start), replace(start, end));
    last = end;
  }
  out.push(...bytes.slice(last, bytes.length));
  return out;
}
