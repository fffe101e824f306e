import type { Implementation } from '@modelcontextprotocol/server';
import { budgetFor, DEFAULT_BUDGET, type ClientBudget } from './client-budgets.js';
import type { Limit, PipelineSettings } from '../config/pipeline.js';

export type {
  ArgumentRefs,
  FieldRule,
  InlineKeep,
  Limit,
  PipelineMode,
  PipelinePatch,
  PipelineSettings,
  RuleConfig,
} from '../config/pipeline.js';
/**
 * What the result pipeline does for one tool: the settings a rule can give. Global defaults,
 * per-server and per-tool rules each give some of these; src/pipeline/rules.ts merges them.
 */

export const DEFAULT_PIPELINE: PipelineSettings = {
  mode: 'auto',
  inlineLimit: 'client',
  dumpLimit: 10_000,
  lineLimit: 'client',
  resultLimit: 'client',
  inlineTokens: 0,
  minBinaryLength: 1000,
  minOffloadBytes: 512,
  previewChars: 500,
  keepInline: {
    imageMaxBytes: 1024 * 1024,
    imageMaxEdge: 1568,
    audioMaxBytes: 128 * 1024,
    previewMaxBytes: 256 * 1024,
  },
  summary: '',
  dryRun: false,
  errorLimit: 20_000,
  download: { timeoutMs: 30_000, maxBytes: 256 * 1024 * 1024, allow: [] },
  argumentRefs: 'restore',
  fields: [],
  jsonPayloads: 'in-place',
};

/**
 * Mode `file` is mode auto's layers with these settings: nothing stays inline (every text goes over a limit
 * of 0, with no preview), and JSON documents give way to the summaries of their payloads.
 */
const FILE_MODE: Partial<PipelineSettings> = {
  inlineLimit: 0,
  dumpLimit: 0,
  inlineTokens: 0,
  minOffloadBytes: 0,
  previewChars: 0,
  keepInline: { imageMaxBytes: 0, imageMaxEdge: 0, audioMaxBytes: 0, previewMaxBytes: 0 },
  jsonPayloads: 'summaries',
};

/** The settings the layers act on: a mode's own settings over the merged ones. */
export function effectiveSettings(settings: PipelineSettings): PipelineSettings {
  return settings.mode === 'file' ? { ...settings, ...FILE_MODE } : settings;
}

/** The settings of one call: limits left to the client take its budget. */
export function forClient(settings: PipelineSettings, client: Implementation | undefined): PipelineSettings {
  if (settings.inlineLimit !== 'client' && settings.lineLimit !== 'client' && settings.resultLimit !== 'client')
    return settings;
  const budget = budgetFor(client);
  // Made once per rule's settings and budget (a handful of each), not on every call.
  let byBudget = clientSettings.get(settings);
  if (!byBudget) clientSettings.set(settings, (byBudget = new Map()));
  let made = byBudget.get(budget);
  if (!made) {
    made = {
      ...settings,
      inlineLimit: settings.inlineLimit === 'client' ? budget.textChars : settings.inlineLimit,
      lineLimit: settings.lineLimit === 'client' ? budget.maxLines : settings.lineLimit,
      resultLimit: settings.resultLimit === 'client' ? budget.resultBytes : settings.resultLimit,
    };
    byBudget.set(budget, made);
  }
  return made;
}

/** forClient's settings, by the rule's settings and the client's budget (one of the table's, or the default). */
const clientSettings = new WeakMap<PipelineSettings, Map<ClientBudget, PipelineSettings>>();

/** The characters of text to read allowed inline, from both limits (a client's unknown: the default budget's). */
export function inlineChars(settings: PipelineSettings): number {
  const chars = settings.inlineLimit === 'client' ? DEFAULT_BUDGET.textChars : settings.inlineLimit;
  return settings.inlineTokens > 0 ? Math.min(chars, settings.inlineTokens * 4) : chars;
}

/** The characters of text not for reading allowed inline: never more than text to read. */
export function dumpChars(settings: PipelineSettings): number {
  return Math.min(settings.dumpLimit, inlineChars(settings));
}

/** Whether a text is under the floor below which nothing is worth storing (its UTF-8 bytes, see minOffloadBytes). */
export function belowFloor(text: string, settings: PipelineSettings): boolean {
  const floor = settings.minOffloadBytes;
  return text.length < floor && Buffer.byteLength(text) < floor;
}

/** Strings shorter than this are not examined for hidden payloads: the floor counts too. */
export function binaryMinLength(settings: PipelineSettings): number {
  return Math.max(settings.minBinaryLength, settings.minOffloadBytes);
}

/** A settled limit as a number (0: none). */
export function limitOf(limit: Limit, fallback: number): number {
  return limit === 'client' ? fallback : limit;
}
