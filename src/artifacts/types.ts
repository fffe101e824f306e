import type { S3StoreOptions } from '../config/types.js';
import type { LiteralForm, LiteralKind } from './literals.js';

/** What the pipeline hands the store: the bytes of one payload and where they came from. */
export interface ArtifactInput {
  /** The payload: its bytes, or pieces written to disk as they are produced, never held whole. */
  data: { bytes: Buffer } | { pieces: PieceSource };
  /** The type the upstream declared, if any; sniffed bytes win when it is missing or generic. */
  mimeType?: string;
  server: string;
  tool: string;
  /** A hash of the call's arguments, so a record says which call produced it. */
  argsHash?: string;
  /** The upstream's own name for the file; sanitized before use. */
  filename?: string;
  /** Facts for summaries (image dimensions, page count, ...), stored with the record. */
  facts?: Record<string, unknown>;
  /** For pieces: computes the facts from the pieces as they pass and the file they were written to. */
  watch?: FactsWatcher;
  /** The session (and token) that produced it; only owners may list and read it. */
  owner?: string;
}

/**
 * Bytes produced piece by piece (decoded while they are written). An iteration throws an
 * `ArtifactStoreError` (`invalid-data`) when the data turns out not to be what it claimed.
 */
export interface PieceSource {
  /** The size the pieces will add up to (checked against the limit before any is produced). */
  size: number;
  /**
   * A piece stays as it is while the next one is produced (it is still being written then), and may be reused for
   * the one after: a consumer keeps no piece longer, so a payload is decoded through two buffers whatever its size.
   */
  pieces(): Iterable<Uint8Array>;
}

/** A payload's bytes as written to a temporary file: where, how many, and the first of them. */
export interface WrittenFile {
  path: string;
  size: number;
  /** The first `HEAD_BYTES` (fewer if the file is shorter). */
  head: Buffer;
}

/** Sees the bytes of a payload stored piece by piece; its answer becomes the record's facts. */
export interface FactsWatcher {
  /** Each piece in order; what is kept of it must be copied. */
  add(piece: Uint8Array): void;
  finish(file: WrittenFile): Promise<Record<string, unknown>>;
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
  /** Sanitized original filename, if the upstream gave one. */
  filename?: string;
  facts: Record<string, unknown>;
  owners: string[];
  /**
   * The other names these bytes were handed out under: stored once, an artifact is named after the server and tool
   * of each call that produced it, so a URI never says the bytes came from a tool they did not come from this time.
   */
  names?: ArtifactName[];
  /** How the payload was written where the proxy replaced it in place, by kind (see literals.ts). */
  literals?: Partial<Record<LiteralKind, LiteralForm[]>>;
}

/** One name of stored bytes: `<server>/<tool>_<sha12>.<ext>`, for the call (server and tool) that produced them. */
export interface ArtifactName {
  id: string;
  server: string;
  tool: string;
  filename?: string;
}

export interface StoreOptions {
  /** The artifacts' directory; with an S3 bucket, only its `.tmp` is used, for payloads on their way up. */
  dir: string;
  /** Set for `artifacts.backend: s3`: artifacts go to this bucket, shared with every replica that names it. */
  s3?: S3StoreOptions;
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
    /** `unavailable`: the bucket did not answer; the artifact may well be there. */
    readonly reason: 'too-large' | 'unwritable' | 'invalid-data' | 'not-found' | 'unavailable',
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

export type { S3StoreOptions };

/** How a session's client reaches an artifact when it cannot open the gateway's files (HTTP). */
export interface ArtifactLinks {
  /** A URL the client can open to fetch the artifact (signed, expiring); a bucket's presigned URL comes async. */
  urlFor(record: ArtifactRecord): string | Promise<string>;
  /** Name the gateway-side path too (the client shares the volume). */
  showPath: boolean;
  /** A signed link to this session's gallery page. */
  galleryUrl?(): string;
}
