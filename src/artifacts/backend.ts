import type { Readable } from 'node:stream';
import type { ArtifactRecord } from './types.js';

/** What is stored: a file already written to the store's tmp directory (piece-file.ts), then moved or uploaded. */
export type Content = { file: string };

/**
 * Where the store keeps bytes and records. The store (store.ts) owns the rules: ids, dedup, owners,
 * locks, garbage collection; a backend only moves bytes and records to and from its medium.
 */
export interface ArtifactBackend {
  /** For logs, the banner and `mcp-offload gc`: a directory, or `s3://bucket/prefix`. */
  readonly location: string;
  /** The store's scratch directory: payloads written piece by piece land here before they are stored. */
  readonly tmpDir: string;
  /**
   * Whether other processes write the same records (a shared bucket). The store then reads through
   * on an unknown id, refreshes its index, and claims what it collects.
   */
  readonly shared: boolean;

  /**
   * Prepares the medium (fails with a clear message when it cannot be used) and answers the records it holds, each
   * with its bytes there as it answers (the store's first collection does not look again); a shared one answers none,
   * the store reading them with listRecords once it is open (store.ts init).
   */
  open(): Promise<ArtifactRecord[]>;
  /** `record.path` for an id: the file on disk, or the object's `s3://` URI. */
  pathFor(id: string, sha256: string): string;

  /** Bytes stored for the record, or undefined when there are none. */
  contentSize(record: ArtifactRecord): Promise<number | undefined>;
  writeContent(record: ArtifactRecord, content: Content): Promise<void>;
  /** Bytes `start` to `end` (exclusive); ContentGone when they vanished, ArtifactStoreError when unreadable. */
  readContent(record: ArtifactRecord, start: number, end: number): Promise<Readable>;
  /** The same bytes in one buffer, where the backend reads them cheaper that way than as a stream. */
  readBytes?(record: ArtifactRecord, start: number, end: number): Promise<Buffer>;
  /** 'absent' when there was nothing to delete; throws when deleting failed. */
  deleteContent(record: ArtifactRecord): Promise<'deleted' | 'absent'>;

  writeRecord(record: ArtifactRecord): Promise<void>;
  deleteRecord(record: ArtifactRecord): Promise<void>;
  writeSidecar(sha256: string, text: string): Promise<void>;
  readSidecar(sha256: string): Promise<string>;
  deleteSidecar(sha256: string): Promise<void>;

  /** Shared backends: the current record for some content, as another process may have written it. */
  fetchRecord?(sha256: string): Promise<ArtifactRecord | undefined>;
  /** Shared backends: the record with this id, written by any process. */
  findId?(id: string): Promise<ArtifactRecord | undefined>;
  /** Shared backends: every record, for the index; a record of `known` nothing changed is answered as itself. */
  listRecords?(known: ReadonlyMap<string, ArtifactRecord>): Promise<ArtifactRecord[]>;
  /** Shared backends: the contents this process may collect now, no other collector having claimed them. */
  claim?(sha256s: string[]): Promise<Set<string>>;
  /** Shared backends: the sha256 of every content stored, in one listing. */
  listContent?(): Promise<Set<string>>;
  /** Shared backends: removes bytes no record names (a writer died in between); how many. */
  sweep?(): Promise<number>;
  /** Shared backends: frees what claim took. */
  release?(sha256s: string[]): Promise<void>;
  /** Shared backends: a URL that fetches the bytes from the medium itself, valid `seconds`, with `disposition`. */
  presign?(record: ArtifactRecord, seconds: number, disposition?: string): Promise<string>;
  close?(): void;
}

/** Raised by readContent when the bytes are gone, so the store forgets the record as it did for a deleted file. */
export class ContentGone extends Error {
  constructor(readonly why: string) {
    super(why);
    this.name = 'ContentGone';
  }
}
