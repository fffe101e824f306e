import { sameBytes, type BlobView } from './blob-view.js';
import { mapLeaves } from './map-leaves.js';

/** The bytes pieces of a message are written as: a string's UTF-8 bytes, a buffer's (or a blob view's) length. */
export function byteLengthOf(pieces: Iterable<string | { readonly length: number }>): number {
  let bytes = 0;
  for (const piece of pieces) bytes += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
  return bytes;
}

/** How the markers of one table are written (see blob-table.ts). */
export interface MarkerSyntax {
  /** A whole marker is this prefix and the blob's number. */
  readonly prefix: string;
  /** Inlaid markers, as they stand in JSON text carried by a string (the prefix's JSON escapes and all). */
  readonly inlaid: string;
  /** Finds inlaid markers; group 1 is the blob's number. */
  readonly inlaidPattern: RegExp;
}

/**
 * The blobs one message arrived with: the only ones its markers can stand for. The pipeline reads them
 * through `view`; `deliver` puts every string back as the upstream sent it and lets the bytes go, once
 * the message leaves the proxy. Another message's markers are not this set's: they stay what they are.
 */
export class Blobs {
  /** The set of a message that arrived without blobs (every message of an HTTP upstream). */
  static readonly NONE = new Blobs(undefined, new Map(), () => undefined);

  private disposed = false;

  constructor(
    private readonly syntax: MarkerSyntax | undefined,
    private readonly views: Map<string, BlobView>,
    private readonly released: (count: number) => void,
  ) {}

  get size(): number {
    return this.views.size;
  }

  /** The blob a marker of this set stands for. */
  view(value: unknown): BlobView | undefined {
    if (this.views.size === 0 || typeof value !== 'string' || !value.startsWith(this.syntax!.prefix)) return undefined;
    return this.views.get(value.slice(this.syntax!.prefix.length));
  }

  isMarker(value: unknown): value is string {
    return this.view(value) !== undefined;
  }

  /** A string as the pipeline reads it: the blob a marker stands for, or the string itself. */
  resolve(value: string): string | BlobView {
    return this.view(value) ?? value;
  }

  /** The length of the string a value stands for: a marker's is its blob's. */
  lengthOf(value: string): number {
    return this.view(value)?.length ?? value.length;
  }

  /** Whether two strings stand for the same text: a marker for its blob's, compared byte for byte. */
  same(a: string, b: string): boolean {
    if (a === b) return true;
    if (this.lengthOf(a) !== this.lengthOf(b)) return false;
    const [x, y] = [this.resolve(a), this.resolve(b)];
    if (typeof x === 'string' && typeof y === 'string') return false;
    return sameBytes(x, y);
  }

  /** Whether a string holds inlaid markers of this set. */
  hasInlaid(value: string): boolean {
    return this.views.size > 0 && value.includes(this.syntax!.inlaid);
  }

  /** A string with its inlaid markers replaced by the strings they stand for. */
  restoreInlaid(value: string): string {
    if (!this.hasInlaid(value)) return value;
    return value.replace(this.syntax!.inlaidPattern, (inlaid, id: string) => this.views.get(id)?.text() ?? inlaid);
  }

  /**
   * A copy of `value` with every marker replaced by its string, and every inlaid marker inside a string
   * by its content (with `keepInlaid`, inlaid markers stay). The same object when there is nothing to
   * restore, which is every value when the set is empty.
   */
  restore<T>(value: T, { keepInlaid = false } = {}): T {
    if (this.views.size === 0) return value;
    return this.restoreValue(value, keepInlaid) as T;
  }

  /**
   * A JSON text with each marker of this set put back as the bytes it stands for: a whole marker string (`"<marker>"`)
   * and an inlaid one (a marker inside JSON carried by a string). The pieces are the blobs' own buffers, not copies;
   * a spooled blob's bytes are read back from its file, or, with `spooledAsViews`, left as the blob itself for a
   * writer that reads it as it writes (write-stream.ts).
   */
  fill(text: string): Array<string | Buffer>;
  fill(text: string, spooledAsViews: true): Array<string | Buffer | BlobView>;
  fill(text: string, spooledAsViews = false): Array<string | Buffer | BlobView> {
    if (this.views.size === 0) return [text];
    const syntax = this.syntax!;
    const quoted = JSON.stringify(syntax.prefix).slice(0, -1);
    const inlaid = JSON.stringify(syntax.inlaid).slice(1, -1);
    const out: Array<string | Buffer | BlobView> = [];
    let copied = 0;
    let at = text.indexOf(syntax.inlaid.slice(1), 0);
    while (at !== -1) {
      // Both forms put two characters before the prefix's `u0000`: a quote and a backslash, or two backslashes.
      const whole = text.startsWith(quoted, at - 2);
      const nested = !whole && text.startsWith(inlaid, at - 2);
      const start = whole || nested ? at - 2 : -1;
      const head = whole ? quoted.length : inlaid.length;
      let end = start + head;
      while (end < text.length && text.charCodeAt(end) >= 0x30 && text.charCodeAt(end) <= 0x39) end++;
      const view = start === -1 ? undefined : this.views.get(text.slice(start + head, end));
      if (view && (!whole || text.charCodeAt(end) === 0x22)) {
        out.push(text.slice(copied, start));
        if (whole) out.push('"');
        if (spooledAsViews && view.spooled) out.push(view);
        else out.push(...view.pieces());
        if (whole) out.push('"');
        copied = whole ? end + 1 : end;
      }
      at = text.indexOf(syntax.inlaid.slice(1), Math.max(at + 1, copied));
    }
    out.push(text.slice(copied));
    return out;
  }

  /** The value as it leaves the proxy: every string restored; the bytes are let go. */
  deliver<T>(value: T): T {
    try {
      return this.restore(value);
    } finally {
      this.dispose();
    }
  }

  /** Lets the bytes go; markers of this set stand for nothing from now on. */
  dispose(): void {
    if (this.disposed || this === Blobs.NONE) return;
    this.disposed = true;
    const count = this.views.size;
    for (const view of this.views.values()) view.dispose();
    this.views.clear();
    this.released(count);
  }

  private restoreValue(value: unknown, keepInlaid: boolean): unknown {
    return mapLeaves(value, (leaf) => {
      if (typeof leaf !== 'string') return leaf;
      const view = this.view(leaf);
      if (view) return view.text();
      return keepInlaid ? leaf : this.restoreInlaid(leaf);
    });
  }
}
