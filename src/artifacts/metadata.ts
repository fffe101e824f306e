import { readFileSync, statSync, type Stats } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { join, sep } from 'node:path';
import type { Logger } from '../logger.js';
import { extensionForFile } from './mime.js';
import { artifactId, isWellFormedId, sanitizeFilename } from './names.js';
import type { ArtifactInput, ArtifactName, ArtifactRecord } from './types.js';
import { parseLiterals } from './literals.js';
import { parseJson, stringifyJson } from '../wire/json.js';

export const ARTIFACT_URI_PREFIX = 'artifact://';
const META_NAME = /^([0-9a-f]{64})\.json$/;
/**
 * Records read at a time, synchronously, before the event loop gets a turn. Read asynchronously, each record cost five
 * round trips through libuv's thread pool (open, stat, read, close, and a stat of its bytes): 20,000 records took
 * 2.5 to 3 s where reading them synchronously takes 0.6 to 0.9 s (bench/store-open.mjs). A batch takes some
 * milliseconds, so the loop is never held longer than that.
 */
const LOAD_BATCH = 256;
// Longer than any put takes; younger metadata without its file is left for its writer.
const IN_PROGRESS_MS = 60 * 60 * 1000;

/**
 * The absolute path of an id, or undefined when the id is not one the store could have made or would
 * land outside `dir`. Every id from a client or from disk goes through here before touching a path.
 */
export function pathForId(dir: string, id: string): string | undefined {
  if (!isWellFormedId(id)) return undefined;
  const path = join(dir, ...id.split('/'));
  return path.startsWith(dir + sep) ? path : undefined;
}

/** The record for bytes about to be written. `taken` says whether an id already belongs to other content. */
export function newRecord(
  pathFor: (id: string) => string,
  input: ArtifactInput,
  facts: { sha256: string; size: number; mimeType: string; owners: string[]; now: number },
  taken: (id: string) => boolean,
): ArtifactRecord {
  const { sha256, size, mimeType, owners } = facts;
  const filename = input.filename === undefined ? undefined : sanitizeFilename(input.filename);
  const ext = extensionForFile(mimeType, filename);
  let id = artifactId(input.server, input.tool, sha256, ext);
  // Twelve hex digits collide only by accident or malice; the full hash settles either.
  if (taken(id)) id = artifactId(input.server, input.tool, sha256, ext, sha256.length);
  const path = pathFor(id);
  const created = new Date(facts.now).toISOString();
  const record: ArtifactRecord = {
    id,
    uri: ARTIFACT_URI_PREFIX + id,
    path,
    mimeType,
    size,
    sha256,
    created,
    lastStored: created,
    server: input.server,
    tool: input.tool,
    facts: input.facts ?? {},
    owners,
  };
  if (input.argsHash !== undefined) record.argsHash = input.argsHash;
  if (filename !== undefined) record.filename = filename;
  return record;
}

export function serializeRecord(record: ArtifactRecord): string {
  return `${stringifyJson(record, 2)}\n`;
}

/** Size of a regular file, or undefined when there is none (deleted by hand, replaced by a directory). */
export async function fileSize(path: string): Promise<number | undefined> {
  return sizeOf(await stat(path).catch(() => undefined));
}

function sizeOf(stats: Stats | undefined): number | undefined {
  return stats?.isFile() ? stats.size : undefined;
}

function isString(v: unknown): v is string {
  return typeof v === 'string';
}

/** A record from disk, checked field by field: metadata files are input like any other. */
export function parseRecord(dir: string, sha256: string, text: string): ArtifactRecord | string {
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch (err) {
    return `not JSON: ${(err as Error).message}`;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'not an object';
  const r = raw as Record<string, unknown>;
  if (r.sha256 !== sha256) return 'sha256 does not match the file name';
  if (!isString(r.id)) return 'no id';
  const path = pathForId(dir, r.id);
  if (!path) return `unsafe id ${JSON.stringify(r.id).slice(0, 200)}`;
  if (typeof r.size !== 'number' || !Number.isSafeInteger(r.size) || r.size < 0) return 'bad size';
  if (!isString(r.created) || Number.isNaN(Date.parse(r.created))) return 'bad created date';
  if (!isString(r.mimeType) || !isString(r.server) || !isString(r.tool)) return 'missing mimeType, server or tool';
  const owners = Array.isArray(r.owners) ? r.owners.filter(isString) : [];
  const facts = typeof r.facts === 'object' && r.facts !== null && !Array.isArray(r.facts) ? r.facts : {};
  const record: ArtifactRecord = {
    id: r.id,
    uri: ARTIFACT_URI_PREFIX + r.id,
    // Recomputed rather than trusted, so a moved directory keeps working.
    path,
    mimeType: r.mimeType,
    size: r.size,
    sha256,
    created: r.created,
    server: r.server,
    tool: r.tool,
    facts: facts as Record<string, unknown>,
    owners,
  };
  if (isString(r.lastStored) && !Number.isNaN(Date.parse(r.lastStored))) record.lastStored = r.lastStored;
  if (isString(r.argsHash)) record.argsHash = r.argsHash;
  if (isString(r.filename)) record.filename = r.filename;
  const names = parseNames(r.names);
  if (names) record.names = names;
  const literals = parseLiterals(r.literals);
  if (literals) record.literals = literals;
  return record;
}

/** A record's other names, each checked like its id; undefined when there are none worth keeping. */
function parseNames(raw: unknown): ArtifactName[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const names: ArtifactName[] = [];
  for (const n of raw as Record<string, unknown>[]) {
    if (typeof n !== 'object' || n === null || !isString(n.id) || !isWellFormedId(n.id)) continue;
    if (!isString(n.server) || !isString(n.tool)) continue;
    names.push({ id: n.id, server: n.server, tool: n.tool, ...(isString(n.filename) ? { filename: n.filename } : {}) });
  }
  return names.length > 0 ? names : undefined;
}

/**
 * The records of a previous run. Unreadable or invalid metadata is logged and left alone (it may be
 * a newer version's, or worth a look); metadata whose file is gone is deleted, since that is what an
 * interrupted put or a person cleaning up by hand leaves behind.
 */
export async function loadRecords(dir: string, metaDir: string, log: Logger): Promise<ArtifactRecord[]> {
  const names = (await readdir(metaDir)).filter((n) => META_NAME.test(n));
  const records: ArtifactRecord[] = [];
  const removals: Promise<unknown>[] = [];
  const loadOne = (name: string): void => {
    const file = join(metaDir, name);
    const sha256 = META_NAME.exec(name)![1]!;
    let parsed: ArtifactRecord | string;
    try {
      parsed = parseRecord(dir, sha256, readFileSync(file, 'utf8'));
    } catch (err) {
      parsed = `unreadable: ${(err as Error).message}`;
    }
    if (typeof parsed === 'string') {
      log.warn({ file, problem: parsed }, 'ignoring invalid artifact metadata');
      return;
    }
    const size = sizeOf(statNow(parsed.path));
    if (size === undefined) {
      // Metadata is written before the file, so fresh metadata may be another proxy's put in progress.
      const metaAge = Date.now() - (statNow(file)?.mtimeMs ?? 0);
      if (metaAge < IN_PROGRESS_MS) return;
      log.debug({ file, path: parsed.path }, 'artifact file is gone; dropping its metadata');
      removals.push(rm(file, { force: true }).catch(() => undefined));
    } else if (size !== parsed.size) {
      log.warn({ path: parsed.path, expected: parsed.size, actual: size }, 'artifact file was changed; ignoring it');
    } else {
      records.push(parsed);
    }
  };
  for (let start = 0; start < names.length; start += LOAD_BATCH) {
    if (start > 0) await nextTurn();
    for (const name of names.slice(start, start + LOAD_BATCH)) loadOne(name);
  }
  await Promise.all(removals);
  return records;
}

/** What stat says of `path` now, or undefined when it cannot say (absent, unreadable). */
function statNow(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
