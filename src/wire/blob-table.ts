import { randomBytes } from 'node:crypto';
import { Blobs, type MarkerSyntax } from './blobs.js';
import type { BlobView } from './blob-view.js';

/** Only literals this long are kept as blobs. */
export const BLOB_LITERAL_BYTES = 256 * 1024;

/** Blobs held by every table of the process: a count for tests and diagnostics, never a way to find one. */
let heldInProcess = 0;

export function blobsHeldInProcess(): number {
  return heldInProcess;
}

/**
 * Huge string literals of one transport kept as bytes, out of the JavaScript heap's strings.
 *
 * A 50 MB image arrives as one JSON line; parsing it whole makes the chunks, the joined line, a string of
 * the line and a string of the payload all live at once. Instead, the upstream's stdout goes through a
 * LiteralCutter that keeps every long literal without escapes here, as the chunks it arrived in (no copy)
 * or, past a few megabytes, in a spool file (held-literal.ts), and leaves a short marker string in its place;
 * in JSON carried by a long literal with escapes, it keeps the inner long strings and inlays their markers in
 * the text (inlay.ts).
 *
 * The blobs kept while a line is read are that message's: `takeMessageBlobs` hands them over as its own
 * set (blobs.ts) when the line has been parsed, and nothing else can look them up.
 */
export class BlobTable {
  private syntax_?: MarkerSyntax;
  private nextId = 0;
  /** Blobs of the line being read. */
  private current = new Map<string, BlobView>();
  private live = 0;

  /**
   * The table's markers. Random per table, so no string an upstream sends can pass for a marker, nor one table's for
   * another's; made when the first literal is kept (a table per HTTP response would otherwise pay for random bytes
   * and a pattern on every small answer).
   */
  get syntax(): MarkerSyntax {
    if (!this.syntax_) {
      const prefix = `\u0000mcp-offload-blob-${randomBytes(6).toString('hex')}:`;
      const inlaid = JSON.stringify(prefix).slice(1, -1);
      this.syntax_ = { prefix, inlaid, inlaidPattern: new RegExp(`${inlaid.replace(/\\/g, '\\\\')}(\\d+)`, 'g') };
    }
    return this.syntax_;
  }

  /** Blobs kept and not yet let go, whoever holds them. */
  get outstanding(): number {
    return this.live;
  }

  /** Keeps a literal's content and answers the marker that stands for it. */
  keep(view: BlobView): string {
    const id = String(this.nextId++);
    this.current.set(id, view);
    this.live++;
    heldInProcess++;
    return this.syntax.prefix + id;
  }

  /** What the cutter writes into an escaped literal in place of an inner string's content. */
  inlaidMarkerBytes(marker: string): Buffer {
    return Buffer.from(JSON.stringify(this.syntax.inlaid).slice(1, -1) + marker.slice(this.syntax.prefix.length));
  }

  /** The blobs of the message just parsed, as its own set. */
  takeMessageBlobs(): Blobs {
    if (this.current.size === 0) return Blobs.NONE;
    const views = this.current;
    this.current = new Map();
    return new Blobs(this.syntax, views, (count) => {
      this.live -= count;
      heldInProcess -= count;
    });
  }

  /** Lets go of what the line being read kept: it was no message (not JSON, cut short, over the limit). */
  dropMessageBlobs(): void {
    this.takeMessageBlobs().dispose();
  }
}
