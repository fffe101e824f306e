import type { ArtifactStore } from '../artifacts/store.js';
import { ArtifactStoreError } from '../artifacts/types.js';
import { hashArguments } from '../artifacts/names.js';
import { humanSize } from '../artifacts/sizes.js';
import type { Logger } from '../logger.js';
import { drain } from '../artifacts/piece-file.js';
import type { ArtifactRecord, PieceSource } from '../artifacts/types.js';
import { dataSize } from './payload-data.js';
import type { Blobs } from '../wire/blobs.js';
import { factsFor, factsWatcher } from './facts/index.js';
import { summaryText } from './summary/describe.js';
import type { PipelineSettings } from './settings.js';
import type { CallInfo, Extraction, LayerContext, Payload, SaveOutcome, WrittenLiteral } from './types.js';
import { formOf, type LiteralForm, type LiteralKind } from '../artifacts/literals.js';
import { ATTR } from '../tracing/attributes.js';
import { traced } from '../tracing/trace.js';

/** Images larger than this in a bucket get no preview: reading them back would cost more than it shows. */
const PREVIEW_DOWNLOAD_LIMIT = 32 * 1024 * 1024;

/** The state of one result on its way through the layers: what was stored, and what to announce. */
export class PipelineRun implements LayerContext {
  readonly extractions: Extraction[] = [];
  readonly announced = new Set<string>();
  /** Something was downloaded into the store (see Payload.fetched). */
  fetched = false;
  /** A text a result carries twice (content and structuredContent) is stored once. */
  private readonly savedTexts = new Map<string, Promise<SaveOutcome>>();

  constructor(
    readonly call: CallInfo,
    readonly settings: PipelineSettings,
    private readonly store: ArtifactStore,
    readonly log: Logger,
    readonly blobs: Blobs,
  ) {}

  async imageSource(record: ArtifactRecord): Promise<string | Buffer | undefined> {
    if (!this.store.shared) return record.path;
    // No file on this disk: the bytes come back from the bucket, up to a size worth a round trip.
    if (record.size > PREVIEW_DOWNLOAD_LIMIT) return undefined;
    return this.store.read(record.id).catch((error: unknown) => {
      this.log.warn(
        { uri: record.uri, err: (error as Error).message },
        'could not read the image back for its preview',
      );
      return undefined;
    });
  }

  /**
   * Stores a payload once per result: the same text, or bytes that land in the same artifact, give the
   * outcome of the first save (one artifact, one summary, one `_meta` entry).
   */
  async save(payload: Payload): Promise<SaveOutcome> {
    if (!('text' in payload.data)) return this.storePayload(payload);
    const text = payload.data.text;
    const saving = this.savedTexts.get(text);
    if (!saving) {
      const first = this.storePayload(payload);
      this.savedTexts.set(text, first);
      return first;
    }
    const outcome = await saving;
    if (outcome.ok === true) alsoFoundAt(outcome.extraction, payload.source);
    return outcome;
  }

  /**
   * Records how a payload was written where a layer replaces it in place, and gives the URI to put
   * there: the artifact's, with `#n` when the same bytes were written another way before, so the
   * exact literal can be put back (restore.ts). Undefined when it could not be recorded: the caller then
   * leaves the literal where it is, since a replacement nobody can undo would lose it.
   */
  async literalUri(extraction: Extraction, kind: LiteralKind, written: WrittenLiteral): Promise<string | undefined> {
    const { record } = extraction;
    try {
      let form: LiteralForm | { text: string };
      if ('form' in written) {
        form = written.form;
      } else {
        const bytes = written.bytes ?? (await this.store.read(record.id));
        form = formOf(written.literal, written.start, written.end, bytes) ?? { text: written.literal };
      }
      const n = await this.store.addLiteral(record.id, kind, form);
      return n === 1 ? record.uri : `${record.uri}#${n}`;
    } catch (error) {
      this.log.warn(
        { uri: record.uri, err: error instanceof Error ? error.message : String(error) },
        'could not record how a payload was written; it stays in place',
      );
      return undefined;
    }
  }

  private async storePayload(payload: Payload): Promise<SaveOutcome> {
    const data = 'text' in payload.data ? { bytes: Buffer.from(payload.data.text, 'utf8') } : payload.data;
    if (this.settings.dryRun) {
      if ('pieces' in data && !isValid(data.pieces)) return { ok: 'invalid' };
      const size = dataSize(data);
      // The logger already names the server and the tool.
      this.log.info(
        { source: payload.source, mimeType: payload.mimeType, size },
        `dry run: would store ${humanSize(size)} from ${payload.source}`,
      );
      return { ok: 'dry-run' };
    }
    try {
      const factsType = payload.mimeType ?? 'application/octet-stream';
      const record = await traced(this.call.trace, 'artifact.store', { [ATTR.mimeType]: factsType }, async (span) => {
        const stored = await this.store.put({
          ...('pieces' in data
            ? { data, watch: factsWatcher(factsType) }
            : { data, facts: await factsFor(data.bytes, factsType) }),
          mimeType: payload.mimeType,
          server: this.call.server,
          tool: this.call.tool,
          argsHash: hashArguments(this.call.args ?? {}),
          filename: payload.filename,
          owner: this.call.owner,
        });
        span?.set({ [ATTR.artifactBytes]: stored.size });
        return stored;
      });
      const known = this.extractions.find((e) => e.record.id === record.id);
      if (known) {
        alsoFoundAt(known, payload.source);
        return { ok: true, extraction: known };
      }
      const link = this.call.links
        ? { url: await this.call.links.urlFor(record), hidePath: !this.call.links.showPath }
        : undefined;
      const summary = summaryText({
        path: record.path,
        uri: record.uri,
        mimeType: record.mimeType,
        size: record.size,
        metadata: payload.metadata,
        facts: record.facts,
        ...(link ? { downloadUrl: link.url, hidePath: link.hidePath } : {}),
        template: payload.summaryTemplate || this.settings.summary || undefined,
        vars: { ...payload.vars, filename: record.filename ?? record.id.split('/').pop() },
      });
      const extraction = { record, source: payload.source, summary, ...(link ? { link } : {}) };
      this.extractions.push(extraction);
      if (payload.fetched) this.fetched = true;
      this.log.debug({ source: payload.source, uri: record.uri, size: record.size }, 'stored a payload');
      return { ok: true, extraction };
    } catch (error) {
      // Decoded as they are stored, pieces can still turn out not to be base64: the layer says so.
      if ('pieces' in data && error instanceof ArtifactStoreError && error.reason === 'invalid-data')
        return { ok: 'invalid' };
      const message = error instanceof ArtifactStoreError || error instanceof Error ? error.message : String(error);
      this.log.warn({ source: payload.source, err: message }, 'could not store a payload');
      return { ok: false, message };
    }
  }
}

function alsoFoundAt(extraction: Extraction, source: string): void {
  if (source === extraction.source || extraction.sources?.includes(source)) return;
  extraction.sources = [...(extraction.sources ?? [extraction.source]), source];
}

/** Whether pieces decode to the end (a dry run stores nothing, but says what it would have left alone). */
function isValid(source: PieceSource): boolean {
  try {
    drain(source);
    return true;
  } catch (error) {
    if (error instanceof ArtifactStoreError && error.reason === 'invalid-data') return false;
    throw error;
  }
}
