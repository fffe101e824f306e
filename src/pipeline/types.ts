import type { RequestTrace } from '../tracing/trace.js';
import type { CallToolResult, Implementation } from '@modelcontextprotocol/server';
import type { ArtifactLinks, ArtifactRecord, PieceSource } from '../artifacts/types.js';

export type { ArtifactLinks };
import type { LiteralForm, LiteralKind } from '../artifacts/literals.js';
import type { Blobs } from '../wire/blobs.js';
import type { PipelineSettings } from './settings.js';

/** The call a result answers. Names are the upstream's own, not the prefixed ones. */
export interface CallInfo {
  server: string;
  tool: string;
  args?: Record<string, unknown>;
  /** The session that made the call; it owns what is stored. */
  owner: string;
  /** Set when the client reaches the gateway over HTTP: summaries then name a download URL. */
  links?: ArtifactLinks;
  /** The client's `clientInfo`: its budget sets the text limits (client-budgets.ts). */
  client?: Implementation;
  /** The call's span, when tracing is on: storing a payload is a child span of it. */
  trace?: RequestTrace;
}

/** A payload a layer found, ready to be stored. */
export interface Payload {
  /**
   * Pieces are base64 kept as bytes, decoded while they are stored (see `base64Data`). `base64`: the string the bytes
   * are the strict decode of, so how it is written can be told without encoding them again (canonicalEncoding).
   */
  data: { bytes: Buffer; base64?: string } | { text: string } | { pieces: PieceSource };
  /** What to say when pieces turn out not to be base64 (nothing is stored then). */
  invalidNote?: string;
  mimeType?: string;
  filename?: string;
  /** Sibling fields shown as `Metadata:` in the summary. */
  metadata?: Record<string, unknown>;
  /** Template for the summary's first line, and extra placeholders for it. */
  summaryTemplate?: string;
  vars?: Record<string, unknown>;
  /** Where it was found, for logs and _meta: `content[1]`, `structuredContent.pdf_data`, ... */
  source: string;
  /**
   * Downloaded from a reference (ABP BinaryDataReference), not taken out of the result: the result's size says
   * nothing about what storing it is worth.
   */
  fetched?: boolean;
}

export interface Extraction {
  record: ArtifactRecord;
  /** Where it was first found. */
  source: string;
  /** Every place the same artifact was taken from, when more than one (content and structuredContent). */
  sources?: string[];
  /** The text the model reads instead of the payload. */
  summary: string;
  /** Over HTTP: the signed download link, and whether the gateway-side path stays out of sight. */
  link?: { url: string; hidePath: boolean };
}

/** The result of trying to store a payload. */
export type SaveOutcome =
  | { ok: true; extraction: Extraction }
  | { ok: false; message: string }
  | { ok: 'dry-run' }
  /** Pieces that turned out not to be base64: nothing was stored, the value stays as it is. */
  | { ok: 'invalid' };

export type Result = CallToolResult;

/**
 * One step of the pipeline (see chain.ts for the order). `applies` is cheap and decodes nothing: the
 * pipeline skips a layer, and a result no layer applies to passes untouched without any work.
 */
export interface Layer {
  readonly name: string;
  /**
   * The result this layer returns is as good as the upstream's (a user's own transformer): the layers after it
   * may rewrite it, but a rewrite is only kept when it is smaller than this.
   */
  readonly authored?: boolean;
  applies(result: Result, settings: PipelineSettings, blobs: Blobs): boolean;
  /** Returns a new result, or the same object when nothing changed; never mutates its input. */
  run(result: Result, context: LayerContext): Promise<Result>;
}

/**
 * A payload as written where it is replaced in place: the literal with the payload's part from `start`
 * to `end` (and the bytes, when at hand), or, for a literal kept as bytes, its form already known.
 */
export type WrittenLiteral = { literal: string; start: number; end: number; bytes?: Buffer } | { form: LiteralForm };

export interface LayerContext {
  call: CallInfo;
  settings: PipelineSettings;
  save(payload: Payload): Promise<SaveOutcome>;
  /** The URI that replaces a payload in place, once how it was written is recorded (see PipelineRun). */
  literalUri(extraction: Extraction, kind: LiteralKind, written: WrittenLiteral): Promise<string | undefined>;
  /** Artifacts already announced in the content, by sha256, so each is summarized once. */
  announced: Set<string>;
  /** What an image preview is made from: the stored file, or the bytes of one in a bucket; undefined: none. */
  imageSource?(record: ArtifactRecord): Promise<string | Buffer | undefined>;
  /** The payloads the result arrived with as bytes: the only ones its markers stand for. */
  blobs: Blobs;
  log: import('../logger.js').Logger;
}
