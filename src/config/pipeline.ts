/**
 * What the result pipeline does for one tool: the settings a rule can give, as the config holds them. Global
 * defaults, per-server and per-tool rules each give some of these; src/pipeline/rules.ts merges them and
 * src/pipeline/settings.ts has the defaults and what the settings mean for one call.
 */

/**
 * auto: the extraction layers; file: the same layers set to save every successful result to a file (the ABP
 * bridge's behavior, see FILE_MODE); passthrough: nothing changes.
 */
export type PipelineMode = 'auto' | 'file' | 'passthrough';

/**
 * What happens to the proxy's stand-ins in a tool's arguments. restore: each `artifact://` URI or
 * `{"$artifact": …}` reference that replaced a payload in place gets its exact literal back (restore.ts);
 * content: an argument that is exactly an artifact's URI becomes its content (text, or base64); off: nothing.
 */
export type ArgumentRefs = 'restore' | 'content' | 'off';

export interface FieldRule {
  /** Dot notation (`result.pdf_data`, `items.0.file`) or JSONPath (`$.items[*].file`). */
  path: string;
  mimeType?: string;
  /** Template for the file's name, e.g. `{name}.pdf`. */
  filename?: string;
  /** Template for the summary's first line. */
  summary?: string;
  /** How the field's string is encoded; default: base64 unless the MIME type is textual. */
  encoding?: 'base64' | 'utf-8';
}

/**
 * What vision and audio models still see. An image within both image limits passes as it came; a larger
 * one is stored, and a copy scaled down to fit them is shown in its place next to the link to the full
 * one. 0 bytes: no image stays, and none is shown scaled down.
 */
export interface InlineKeep {
  /** Decoded bytes of an image shown inline. */
  imageMaxBytes: number;
  /** Pixels on an image's long edge (1568: what Claude's vision reads without scaling it down itself). */
  imageMaxEdge: number;
  /** Decoded bytes of audio kept inline; 0: none. */
  audioMaxBytes: number;
  /**
   * Bytes of an image preview as it lands in the result (its base64), whatever the source: a preview is a
   * glance, not the image. The client's whole-result budget may make it smaller still.
   */
  previewMaxBytes: number;
}

/** A limit, or the one of the client's budget (client-budgets.ts), settled for each call. */
export type Limit = number | 'client';

export interface PipelineSettings {
  mode: PipelineMode;
  /** Text a model works with (code, prose) longer than this many characters is stored and previewed. */
  inlineLimit: Limit;
  /** Text that is not for reading (base64, minified code, JSON on one line) longer than this is stored. */
  dumpLimit: number;
  /** Text with more lines than this is stored; 0: no limit. */
  lineLimit: Limit;
  /** A result whose JSON has more bytes than this has its longest texts stored until it fits; 0: no limit. */
  resultLimit: Limit;
  /** The same limit as an estimated token count (4 characters a token); the smaller limit wins. 0 = not used. */
  inlineTokens: number;
  /** Strings shorter than this are never examined for hidden binary data. */
  minBinaryLength: number;
  /**
   * A block or string whose payload, as the result carries it (base64 or text), has fewer bytes than this is
   * never stored by a layer that guesses: its summary and link would take about as much room as it does.
   */
  minOffloadBytes: number;
  /** Characters of the stored text shown in the preview. */
  previewChars: number;
  keepInline: InlineKeep;
  /** Template for the first line of every summary. Empty: the standard summary only. */
  summary: string;
  /** Log what would be rewritten, change nothing, store nothing. */
  dryRun: boolean;
  /** Error results longer than this are cut (the whole text is stored as an artifact). */
  errorLimit: number;
  /**
   * BinaryDataReference downloads. `allow`: host names, addresses and CIDR ranges reached although internal
   * (refused otherwise). `abpApps`: the app an ABP backend of this process shows is reached too (the ABP preset).
   */
  download: { timeoutMs: number; maxBytes: number; allow: string[]; abpApps?: boolean };
  argumentRefs: ArgumentRefs;
  /** Per-tool fields to extract; the most specific rule's list is used. */
  fields: FieldRule[];
  /** A JS module whose default export rewrites results first. Absolute path. */
  transform?: string;
  /**
   * How payloads found inside a JSON document are shown. `in-place` (mode auto): the document stays, each
   * payload at any depth replaced by a reference. `summaries` (mode file, the ABP bridge's data flow): the
   * ABP shapes at the top or one level down count (text declared `encoding: "utf-8"` too), and their
   * summaries take the document's place, its other fields shown as their metadata. Set by the mode.
   */
  jsonPayloads: 'in-place' | 'summaries';
}

/** Some of the settings, as one level (global, server, rule) gives them. */
export type PipelinePatch = Partial<Omit<PipelineSettings, 'keepInline' | 'download' | 'jsonPayloads'>> & {
  keepInline?: Partial<InlineKeep>;
  download?: Partial<PipelineSettings['download']>;
};

/** A rule as written: globs on server and tool name, and some settings. */
export interface RuleConfig {
  server: string;
  /** Absent: a per-server rule. */
  tool?: string;
  settings: PipelinePatch;
  /** Where it was written, for messages. */
  line?: number;
}
