/**
 * What the result pipeline does for one tool: the settings a rule can give. Global defaults,
 * per-server and per-tool rules each give some of these; src/pipeline/rules.ts merges them.
 */

/** auto: the extraction layers; file: every successful result saved to a file (the ABP behaviour); passthrough: nothing changes. */
export type PipelineMode = 'auto' | 'file' | 'passthrough';

/** How an `artifact://` argument is handed upstream: its bytes in base64, its text, or left alone. */
export type ArgumentRefs = 'off' | 'content';

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

export interface InlineKeep {
  /** Images up to this many decoded bytes stay inline (for vision models); 0 = none. */
  imageMaxBytes: number;
  /** Audio up to this many decoded bytes stays inline; 0 = none. */
  audioMaxBytes: number;
}

export interface PipelineSettings {
  mode: PipelineMode;
  /** Text longer than this many characters is stored and replaced by a preview. */
  inlineLimit: number;
  /** The same limit as an estimated token count (4 characters a token); the smaller limit wins. 0 = not used. */
  inlineTokens: number;
  /** Strings shorter than this are never examined for hidden binary data. */
  minBinaryLength: number;
  /** Characters of the stored text shown in the preview. */
  previewChars: number;
  keepInline: InlineKeep;
  /** Template for the first line of every summary. Empty: the standard summary only. */
  summary: string;
  /** Log what would be rewritten, change nothing, store nothing. */
  dryRun: boolean;
  /** Error results longer than this are cut (the whole text is stored as an artifact). */
  errorLimit: number;
  /** BinaryDataReference downloads. */
  download: { timeoutMs: number; maxBytes: number };
  argumentRefs: ArgumentRefs;
  /** Per-tool fields to extract; the most specific rule's list is used. */
  fields: FieldRule[];
  /** A JS module whose default export rewrites results first. Absolute path. */
  transform?: string;
}

export const DEFAULT_PIPELINE: PipelineSettings = {
  mode: 'auto',
  inlineLimit: 10_000,
  inlineTokens: 0,
  minBinaryLength: 1000,
  previewChars: 500,
  keepInline: { imageMaxBytes: 0, audioMaxBytes: 0 },
  summary: '',
  dryRun: false,
  errorLimit: 20_000,
  download: { timeoutMs: 30_000, maxBytes: 256 * 1024 * 1024 },
  argumentRefs: 'off',
  fields: [],
};

/** Some of the settings, as one level (global, server, rule) gives them. */
export type PipelinePatch = Partial<Omit<PipelineSettings, 'keepInline' | 'download'>> & {
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

/** The characters of text allowed inline, from both limits. */
export function inlineChars(settings: PipelineSettings): number {
  return settings.inlineTokens > 0 ? Math.min(settings.inlineLimit, settings.inlineTokens * 4) : settings.inlineLimit;
}
