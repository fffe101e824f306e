import type { ArtifactStore } from '../artifacts/store.js';
import type { Logger } from '../logger.js';
import { markersIn, outstandingBlobs, releaseBlob, restoreBlobs } from '../transports/blobs.js';
import { inlineChars, type PipelineSettings } from './settings.js';
import { binaryStringsLayer } from './layers/binary-strings.js';
import { errorLimitLayer } from './layers/error-limit.js';
import { fieldRulesLayer } from './layers/field-rules.js';
import { fileModeLayer } from './layers/file-mode.js';
import { sizeLimitLayer } from './layers/size-limit.js';
import { transformLayer } from './layers/transform.js';
import { typedContentLayer } from './layers/typed-content.js';
import type { RuleBook } from './rules.js';
import { PipelineRun } from './run.js';
import type { CallInfo, Layer, Result } from './types.js';

/** The layers of mode `auto`, in the order the RFC gives them. */
const AUTO_LAYERS: Layer[] = [transformLayer, fieldRulesLayer, typedContentLayer, binaryStringsLayer, sizeLimitLayer];
const FILE_LAYERS: Layer[] = [transformLayer, fileModeLayer];
const ERROR_LAYERS: Layer[] = [errorLimitLayer];

export const ARTIFACTS_META_KEY = 'mcp-offload/artifacts';

/**
 * Every tools/call result passes through here on its way to the client. What no layer rewrites
 * is returned as the very same object, so it reaches the client exactly as the upstream sent it.
 * The pipeline never throws: on an unexpected fault it logs and returns the result unchanged.
 */
export class ResultPipeline {
  constructor(
    private readonly rules: RuleBook,
    private readonly store: ArtifactStore,
    private readonly log: Logger,
  ) {}

  async process(result: Result, call: CallInfo): Promise<Result> {
    const settings = this.rules.settingsFor(call.server, call.tool);
    if (settings.mode === 'passthrough' || (settings.mode === 'auto' && nothingToExtract(result, settings))) return result;
    const run = new PipelineRun(call, settings, this.store, this.log.child({ server: call.server, tool: call.tool }));
    const layers = result.isError ? ERROR_LAYERS : settings.mode === 'file' ? FILE_LAYERS : AUTO_LAYERS;
    try {
      let next = materialize(result, layers === AUTO_LAYERS && !settings.transform);
      for (const layer of layers) next = await layer(next, run);
      const output = run.extractions.length ? withArtifactMeta(next, run) : next;
      releaseDropped(result, output);
      return output;
    } catch (error) {
      this.log.error({ err: error instanceof Error ? error.stack : String(error), tool: call.tool }, 'result pipeline failed; passing the result on unchanged');
      return result;
    }
  }
}

/** An ABP BinaryDataReference is small but names a file to download, whatever the result's size. */
const REFERENCE_KEY = '"downloadUrl"';

/**
 * The pre-check that lets most results through untouched without running a layer: only short text
 * (shorter than the binary minimum and the inline limit, so neither detection nor the size net
 * could act), links, and a small structuredContent, none naming a `downloadUrl`. Rules that name
 * fields or a transformer always run, since they may act on anything.
 */
function nothingToExtract(result: Result, settings: PipelineSettings): boolean {
  // Any marker may stand for a payload of any size: only a result free of them is judged by length.
  if (result.isError || settings.transform || settings.fields.length || outstandingBlobs() > 0) return false;
  const limit = Math.min(settings.minBinaryLength, inlineChars(settings));
  for (const block of result.content ?? []) {
    if (block.type === 'resource_link') continue;
    if (block.type !== 'text' || block.text.length >= limit || block.text.includes(REFERENCE_KEY)) return false;
  }
  const structured = result.structuredContent;
  if (structured === undefined) return true;
  const json = JSON.stringify(structured);
  return json.length < limit && !json.includes(REFERENCE_KEY);
}

/**
 * Payloads the stdio reader kept as bytes (transports/blobs.ts) stay so only where a layer decodes
 * straight from the bytes: image and audio data and resource blobs, and, when the layers of mode
 * auto run without a transformer, strings of JSON inside text blocks (their markers inlaid in the
 * text, see transports/inlay.ts; the JSON layers read them, and restore what they leave). Every
 * other string is restored before the layers read it.
 */
function materialize(result: Result, keepInlaid: boolean): Result {
  if (outstandingBlobs() === 0) return result;
  const { content, ...rest } = result;
  const restoredRest = restoreBlobs(rest, { release: false });
  let changed = restoredRest !== rest;
  const blocks = (content ?? []).map((block) => {
    if (block.type === 'image' || block.type === 'audio' || (block.type === 'resource' && 'blob' in block.resource)) return block;
    const restored = restoreBlobs(block, { keepInlaid: keepInlaid && block.type === 'text', release: false });
    if (restored !== block) changed = true;
    return restored;
  });
  return changed ? ({ ...restoredRest, content: blocks } as Result) : result;
}

/**
 * Bytes kept for the result that the answer no longer refers to are let go, now that it is final.
 * Not before: a layer that failed hands the client the result as it came, markers and all.
 */
function releaseDropped(input: Result, output: Result): void {
  if (outstandingBlobs() === 0) return;
  const kept = markersIn(output);
  for (const marker of markersIn(input)) if (!kept.has(marker)) releaseBlob(marker);
}

function withArtifactMeta(result: Result, run: PipelineRun): Result {
  const artifacts = run.extractions.map(({ record, source, link }) => ({
    uri: record.uri,
    path: record.path,
    ...(link ? { downloadUrl: link.url } : {}),
    mimeType: record.mimeType,
    size: record.size,
    sha256: record.sha256,
    source,
  }));
  return { ...result, _meta: { ...result._meta, [ARTIFACTS_META_KEY]: artifacts } };
}
