import { ARTIFACT_URI_PREFIX } from './metadata.js';
import type { ArtifactRecord, ListFilter } from './types.js';

/** When an artifact was last produced: `lastStored`, else `created`. Age and order go by this. */
export const activity = (r: ArtifactRecord): number => Date.parse(r.lastStored ?? r.created);

/**
 * Callers get copies, so nothing they do to a record changes the store's. Given one of the record's other names
 * (`id`), the copy goes by it: its id, URI, server, tool and file name are that name's; bytes, owners and facts are
 * the same, and reading by either id reads the same bytes.
 */
export const snapshot = (r: ArtifactRecord, id = r.id): ArtifactRecord => {
  const copy: ArtifactRecord = {
    ...r,
    owners: [...r.owners],
    facts: { ...r.facts },
    ...(r.names ? { names: r.names.map((n) => ({ ...n })) } : {}),
    ...(r.literals ? { literals: structuredClone(r.literals) } : {}),
  };
  const name = id === r.id ? undefined : r.names?.find((n) => n.id === id);
  if (!name) return copy;
  const { filename: _, ...rest } = copy;
  return {
    ...rest,
    id: name.id,
    uri: ARTIFACT_URI_PREFIX + name.id,
    server: name.server,
    tool: name.tool,
    ...(name.filename !== undefined ? { filename: name.filename } : {}),
  };
};

/** Whether `id` is one of the record's names. */
export function goesBy(record: ArtifactRecord, id: string): boolean {
  return record.id === id || (record.names ?? []).some((n) => n.id === id);
}

/** The bare id of an `artifact://` URI (fragment dropped) or an id as it is. */
export function idIn(idOrUri: string): string {
  if (!idOrUri.startsWith(ARTIFACT_URI_PREFIX)) return idOrUri;
  const hash = idOrUri.indexOf('#');
  return idOrUri.slice(ARTIFACT_URI_PREFIX.length, hash === -1 ? undefined : hash);
}

/** The in-memory view of the store: records by id and by content, and their total size. */
export class RecordIndex {
  private readonly byId = new Map<string, ArtifactRecord>();
  private readonly byHash = new Map<string, ArtifactRecord>();
  private bytes = 0;
  /** Told of each content whose record is added, removed or named anew. */
  onChange?: (sha256: string) => void;

  get totalBytes(): number {
    return this.bytes;
  }

  get size(): number {
    return this.byHash.size;
  }

  hasId(id: string): boolean {
    return this.byId.has(id);
  }

  byContent(sha256: string): ArtifactRecord | undefined {
    return this.byHash.get(sha256);
  }

  /**
   * Only ids the store handed out resolve; nothing from outside is ever joined into a path. A URI's
   * fragment (`#2`: which of the ways the bytes were written, see literals.ts) names the same artifact.
   */
  lookup(idOrUri: string): ArtifactRecord | undefined {
    if (typeof idOrUri !== 'string') return undefined;
    return this.byId.get(idIn(idOrUri));
  }

  /** Whether `record` is still the current record for its content (not removed or replaced meanwhile). */
  isCurrent(record: ArtifactRecord): boolean {
    return this.byHash.get(record.sha256) === record;
  }

  add(record: ArtifactRecord): void {
    this.byId.set(record.id, record);
    for (const name of record.names ?? []) if (!this.byId.has(name.id)) this.byId.set(name.id, record);
    this.byHash.set(record.sha256, record);
    this.bytes += record.size;
    this.onChange?.(record.sha256);
  }

  delete(record: ArtifactRecord): void {
    if (!this.isCurrent(record)) return;
    this.byId.delete(record.id);
    for (const name of record.names ?? []) if (this.byId.get(name.id) === record) this.byId.delete(name.id);
    this.byHash.delete(record.sha256);
    this.bytes -= record.size;
    this.onChange?.(record.sha256);
  }

  /** Each record once, under its first name. */
  all(): ArtifactRecord[] {
    return [...this.byHash.values()];
  }

  /** Another name for a record already here (a put of the same bytes by another tool). */
  addName(record: ArtifactRecord, id: string): void {
    if (!this.byId.has(id)) this.byId.set(id, record);
    this.onChange?.(record.sha256);
  }

  /** Newest first. */
  list(filter: ListFilter = {}): ArtifactRecord[] {
    return this.all()
      .filter((r) => filter.owner === undefined || r.owners.includes(filter.owner))
      .filter((r) => filter.server === undefined || r.server === filter.server)
      .filter((r) => filter.tool === undefined || r.tool === filter.tool)
      .sort((a, b) => activity(b) - activity(a) || (a.id < b.id ? -1 : 1));
  }
}
