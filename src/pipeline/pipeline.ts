import type { ArtifactStore } from '../artifacts/store.js';
import type { Logger } from '../logger.js';
import { Blobs } from '../wire/blobs.js';
import { chainFor } from './chain.js';
import { forClient } from './settings.js';
import type { RuleBook } from './rules.js';
import { PipelineRun } from './run.js';
import { surelyUntouched } from './untouched.js';
import { jsonBytes, jsonBytesAtLeast } from './result-bytes.js';
import type { CallInfo, Extraction, Result } from './types.js';

export const ARTIFACTS_META_KEY = 'mcp-offload/artifacts';

/**
 * Every tools/call result passes through here on its way to the client. What no layer rewrites
 * is returned as the very same object, so it reaches the client exactly as the upstream sent it.
 * A rewrite never costs the client room: one whose JSON (summaries, previews, links, `_meta`) would be
 * larger than the upstream's is dropped, and the result goes as it came (what was stored stays stored,
 * referenced by nothing the client sees).
 * The pipeline never throws: on an unexpected fault it logs and returns the result unchanged.
 */
export class ResultPipeline {
  constructor(
    private readonly rules: RuleBook,
    private readonly store: ArtifactStore,
    private readonly log: Logger,
  ) {}

  /**
   * `blobs` are the payloads the result arrived with as bytes (transports/blob-channel.ts): the caller
   * owns them, and restores what the answer still marks when it delivers it.
   */
  async process(result: Result, call: CallInfo, blobs: Blobs = Blobs.NONE): Promise<Result> {
    const plan = this.plan(result, call, blobs);
    if (!plan) return result;
    const { settings, chain } = plan;
    try {
      let next = materialize(result, blobs, !settings.transform && !result.isError);
      // Most results: no layer applies, nothing is copied or decoded.
      if (!chain.some((layer) => layer.applies(next, settings, blobs))) return result;
      const log = this.log.child({ server: call.server, tool: call.tool });
      const run = new PipelineRun(call, settings, this.store, log, blobs);
      // What an offload must beat: the upstream's result, or what the user's own transformer made of it.
      let baseline = result;
      let stored = 0;
      // Each layer looks again at the result as the ones before it left it.
      for (const layer of chain) {
        if (!layer.applies(next, settings, blobs)) continue;
        next = await layer.run(next, run);
        if (layer.authored) [baseline, stored] = [next, run.extractions.length];
      }
      const rewritten = run.extractions.length ? withArtifactMeta(next, run.extractions) : next;
      // Held to its size: a rewrite that took payloads out of the result. Not one that only adds a note (a payload
      // the store refused stays inline, and the note says why), not a download (what it stores was never in the
      // result), not mode file (it stores every result, whatever its size: that is what it is asked for).
      if (run.extractions.length === stored || run.fetched || settings.mode === 'file') return rewritten;
      const kept = stored ? withArtifactMeta(baseline, run.extractions.slice(0, stored)) : baseline;
      return smallerOf(rewritten, kept, blobs, log);
    } catch (error) {
      const err = error instanceof Error ? error.stack : String(error);
      this.log.error({ err, tool: call.tool }, 'result pipeline failed; passing the result on unchanged');
      return result;
    }
  }

  /** Whether the pipeline certainly returns this result as it is, known without running a layer. */
  passesUnchanged(result: Result, call: CallInfo, blobs: Blobs = Blobs.NONE): boolean {
    return this.plan(result, call, blobs) === undefined;
  }

  /** The settings and layers a result goes through, or undefined when it certainly passes as it is. */
  private plan(result: Result, call: CallInfo, blobs: Blobs) {
    // Only a final result is the tool's output: an `input_required` question or a task handle passes as it came.
    if (!isComplete(result)) return undefined;
    const settings = forClient(this.rules.settingsFor(call.server, call.tool), call.client);
    const chain = chainFor(result, settings);
    if (!chain.length || surelyUntouched(result, settings, blobs.size)) return undefined;
    return { settings, chain };
  }
}

/** The rewritten result, unless it has no fewer bytes than the original: then the original, as it came. */
function smallerOf(rewritten: Result, original: Result, blobs: Blobs, log: Logger): Result {
  const after = jsonBytes(rewritten, blobs);
  // A rewrite that took a payload out is smaller than the result from its lengths alone: the payload is not measured.
  if (after < jsonBytesAtLeast(original, blobs)) return rewritten;
  const before = jsonBytes(original, blobs);
  if (after < before) return rewritten;
  log.debug({ before, after }, 'the rewritten result is not smaller; passing the original on');
  return original;
}

/** A result without `resultType` is complete: results of the legacy era, and modern ones the SDK has decoded. */
export function isComplete(result: Result): boolean {
  const kind = (result as { resultType?: unknown }).resultType;
  return kind === undefined || kind === 'complete';
}

/**
 * Payloads the stdio reader kept as bytes (transports/blob-table.ts) stay so only where a layer decodes
 * straight from the bytes: image and audio data and resource blobs, and, when no transformer runs, strings
 * of JSON inside the text blocks of a successful result (their markers inlaid in the text, see
 * transports/inlay.ts; the JSON layers read them, and restore what they leave). Every other string is
 * restored before the layers read it.
 */
function materialize(result: Result, blobs: Blobs, keepInlaid: boolean): Result {
  if (blobs.size === 0) return result;
  const { content, ...rest } = result;
  const restoredRest = blobs.restore(rest);
  let changed = restoredRest !== rest;
  const blocks = (content ?? []).map((block) => {
    if (block.type === 'image' || block.type === 'audio' || (block.type === 'resource' && 'blob' in block.resource))
      return block;
    const restored = blobs.restore(block, { keepInlaid: keepInlaid && block.type === 'text' });
    if (restored !== block) changed = true;
    return restored;
  });
  return changed ? ({ ...restoredRest, content: blocks } as Result) : result;
}

function withArtifactMeta(result: Result, extractions: readonly Extraction[]): Result {
  const artifacts = extractions.map(({ record, source, sources, link }) => ({
    uri: record.uri,
    // Over HTTP the client is elsewhere: the gateway's file path is no use to it, and says what it need not know.
    ...(link?.hidePath ? {} : { path: record.path }),
    ...(link ? { downloadUrl: link.url } : {}),
    mimeType: record.mimeType,
    size: record.size,
    sha256: record.sha256,
    source,
    ...(sources ? { sources } : {}),
  }));
  return { ...result, _meta: { ...result._meta, [ARTIFACTS_META_KEY]: artifacts } };
}
