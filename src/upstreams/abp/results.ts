/**
 * A capability call's outcome as an MCP tool result, shaped for the artifact pipeline's `file` mode
 * (the ABP preset): one text block holding the JSON of what is to be saved. File mode parses it,
 * decodes BinaryData at the top or one level down (siblings become the summary's `Metadata:` line),
 * downloads BinaryDataReferences, and saves anything else as JSON. It reads a single text block as
 * JSON but joins several into one text file, so everything goes into that one document.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { AbpError, CallOutcome, HandledDialog, InterceptedOutput } from './types.js';

/** Key of the dialogs the guard handled during the call, added to the saved document. */
export const DIALOGS_KEY = 'handledDialogs';

const MAX_DETAIL_CHARS = 1000;

/**
 * What the model gets for a successful call:
 * - the app's `data` as it is, when it carries binary data or nothing was intercepted (binary in the
 *   response takes priority over the guard's outputs);
 * - otherwise the intercepted outputs as BinaryData (`pdf`, `download`, `download_2`, ...), with the
 *   app's answer as their sibling `data`, so each is saved as its own file and the answer shows as metadata.
 * Handled dialogs are added as `handledDialogs`: beside a payload they show in its `Metadata:` line.
 */
export function callResult(outcome: CallOutcome, responseHasBinary: boolean): CallToolResult {
  const data = outcome.response.data ?? null;
  let doc: unknown = data;
  if (!responseHasBinary && outcome.outputs.length > 0) {
    doc = { ...interceptedDocument(outcome.outputs), ...(data !== null ? { data } : {}) };
  }
  return jsonResult(withDialogs(doc, outcome.dialogs));
}

/** A PDF rendered by abp_render_to_pdf, in the same BinaryData shape. */
export function pdfResult(bytes: Buffer, filename = 'render.pdf'): CallToolResult {
  return jsonResult({ pdf: binaryData(bytes, 'application/pdf', filename) });
}

/**
 * `CODE: message (retryable)`, the ABP bridge's inline error, with details when the app gave some and
 * how often it was tried when that was more than once.
 */
export function appErrorResult(
  error: AbpError | undefined,
  how: { cancelled?: boolean; attempts?: number } = {},
): CallToolResult {
  if (!error)
    return errorResult(
      how.cancelled
        ? 'CANCELLED: the call was cancelled'
        : 'OPERATION_FAILED: the app reported a failure without an error',
    );
  const lines = [`${error.code}: ${error.message}${error.retryable ? ' (retryable)' : ''}`];
  if (error.details !== undefined) lines.push(`Details: ${capped(error.details)}`);
  if (error.alternatives !== undefined) lines.push(`Alternatives: ${capped(error.alternatives)}`);
  if (how.attempts !== undefined && how.attempts > 1) lines.push(`(failed ${how.attempts} times)`);
  return errorResult(lines.join('\n'));
}

export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

function jsonResult(doc: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(doc ?? null) }] };
}

function interceptedDocument(outputs: readonly InterceptedOutput[]): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  const counts = { print: 0, download: 0 };
  for (const output of outputs) {
    const n = ++counts[output.kind];
    const key = `${output.kind === 'print' ? 'pdf' : 'download'}${n > 1 ? `_${n}` : ''}`;
    doc[key] = binaryData(output.bytes, output.mimeType, output.filename);
  }
  return doc;
}

function binaryData(bytes: Buffer, mimeType: string, filename?: string): Record<string, unknown> {
  return {
    content: bytes.toString('base64'),
    mimeType,
    encoding: 'base64',
    size: bytes.length,
    ...(filename ? { filename } : {}),
  };
}

/** Objects get the field; anything else (an array, a string, null) is wrapped as `{data, handledDialogs}`. */
function withDialogs(doc: unknown, dialogs: readonly HandledDialog[]): unknown {
  if (!dialogs.length) return doc;
  const report = dialogs.map(({ type, message, action }) => ({ type, message, action }));
  if (typeof doc === 'object' && doc !== null && !Array.isArray(doc)) return { ...doc, [DIALOGS_KEY]: report };
  return { data: doc, [DIALOGS_KEY]: report };
}

function capped(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text;
}
