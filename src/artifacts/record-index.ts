import { ARTIFACT_URI_PREFIX } from './metadata.js';
import type { ArtifactRecord, ListFilter } from './types.js';

/** When an artifact was last produced: `lastStored`, else `created`. Age and order go by this. */
export const activity = (r: ArtifactRecord): number => Date.parse(r.lastStored ?? r.created);

/** Callers get copies, so nothing they do to a record changes the store's. */
export const snapshot = (r: ArtifactRecord): ArtifactRecord => ({
  ...r,
  owners: [...r.owners],
  facts: { ...r.facts },
  ...(r.literals ? { literals: structuredClone(r.literals) } : {}),
});

/** The in-memory view of the store: records by id and by content, and their total size. */
export class RecordIndex {
  private readonly byId = new Map<string, ArtifactRecord>();
  private readonly byHash = new Map<string, ArtifactRecord>();
  private bytes = 0;

  get totalBytes(): number {
    return this.bytes;
  }

  get size(): number {
    return this.byId.size;
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
    if (!idOrUri.startsWith(ARTIFACT_URI_PREFIX)) return this.byId.get(idOrUri);
    const hash = idOrUri.indexOf('#');
    return this.byId.get(idOrUri.slice(ARTIFACT_URI_PREFIX.length, hash === -1 ? undefined : hash));
  }

  /** Whether `record` is still the current record for its content (not removed or replaced meanwhile). */
  isCurrent(record: ArtifactRecord): boolean {
    return this.byHash.get(record.sha256) === record;
  }

  add(record: ArtifactRecord): void {
    this.byId.set(record.id, record);
    this.byHash.set(record.sha256, record);
    this.bytes += record.size;
  }

  delete(record: ArtifactRecord): void {
    if (!this.isCurrent(record)) return;
    this.byId.delete(record.id);
    this.byHash.delete(record.sha256);
    this.bytes -= record.size;
  }

  all(): ArtifactRecord[] {
    return [...this.byId.values()];
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
