/** What the pipeline hands the store: the bytes of one payload and where they came from. */
export interface ArtifactInput {
  /** The payload. A base64 string is decoded by the store (in one pass with hashing). */
  data: { bytes: Buffer } | { base64: string } | { text: string };
  /** The type the upstream declared, if any; sniffed bytes win when it is missing or generic. */
  mimeType?: string;
  server: string;
  tool: string;
  /** A hash of the call's arguments, so a record says which call produced it. */
  argsHash?: string;
  /** The upstream's own name for the file; sanitised before use. */
  filename?: string;
  /** Facts for summaries (image dimensions, page count, ...), stored with the record. */
  facts?: Record<string, unknown>;
  /** The session (and token) that produced it; only owners may list and read it. */
  owner?: string;
}

export interface ArtifactRecord {
  /** Path relative to the store's directory, with `/` separators: `<server>/<tool>_<sha12>.<ext>`. */
  id: string;
  /** `artifact://<id>` */
  uri: string;
  /** Absolute path of the file. */
  path: string;
  mimeType: string;
  /** Bytes of the stored file. */
  size: number;
  sha256: string;
  /** ISO 8601. */
  created: string;
  /**
   * ISO 8601: the last time these bytes were stored (a later put of identical bytes refreshes it).
   * Age for garbage collection and the order of `list` go by this, so an artifact just handed to a
   * client is not collected because an identical one was first produced a week ago.
   */
  lastStored?: string;
  server: string;
  tool: string;
  argsHash?: string;
  /** Sanitised original filename, if the upstream gave one. */
  filename?: string;
  facts: Record<string, unknown>;
  owners: string[];
}

export interface StoreOptions {
  dir: string;
  /** Largest single artifact; larger payloads are refused with nothing left on disk. */
  maxArtifactBytes: number;
  /** Total size kept; the oldest artifacts are removed beyond it. 0 = no quota. */
  quotaBytes: number;
  /** Artifacts older than this are removed by garbage collection. 0 = keep forever. */
  ttlMs: number;
  /** Milliseconds since the epoch; tests pass a fake clock. Default `Date.now`. */
  now?: () => number;
}

/** Why a payload could not be stored; the message is written for the person reading the result. */
export class ArtifactStoreError extends Error {
  constructor(
    readonly reason: 'too-large' | 'unwritable' | 'invalid-data' | 'not-found',
    message: string,
  ) {
    super(message);
    this.name = 'ArtifactStoreError';
  }
}

/** Bytes `start` (inclusive) to `end` (exclusive; default the end of the file), like `Buffer.subarray`. */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface ListFilter {
  owner?: string;
  server?: string;
  tool?: string;
}

export interface GcResult {
  removed: number;
  freedBytes: number;
  remaining: number;
  remainingBytes: number;
  /** Records dropped because their file had already been deleted by hand. */
  forgotten: number;
}
