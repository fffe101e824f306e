import { isTextMimeType } from '../../artifacts/mime.js';
import { base64Data } from '../payload-data.js';
import { resolveFieldPath } from '../field-paths.js';
import {
  extractInto,
  parentOf,
  rewriteJsonDocuments,
  siblingMetadata,
  valueAt,
  type DocRewrite,
} from '../json-docs.js';
import { isReference } from '../reference.js';
import type { FieldRule } from '../settings.js';
import { renderTemplate } from '../summary/template.js';
import type { Layer, LayerContext, Payload } from '../types.js';
import { stringifyJson } from '../../wire/json.js';

/**
 * Layer 2: the fields a rule names for this tool, in structuredContent or in JSON carried by a
 * text block. The field is replaced by a small reference; its siblings stay, so
 * `{"name": "Sales Dashboard", "content": "JVBERi0..."}` keeps its name in view.
 */
export const fieldRulesLayer: Layer = {
  name: 'field-rules',
  applies: (_result, settings) => settings.fields.length > 0,
  run: (result, run) => rewriteJsonDocuments(result, run, rewriteDocument),
};

async function rewriteDocument(doc: unknown, source: string, run: LayerContext): Promise<DocRewrite> {
  const rewrite: DocRewrite = { replacements: [], extractions: [], notes: [] };
  for (const rule of run.settings.fields) {
    let paths;
    try {
      paths = resolveFieldPath(doc, rule.path);
    } catch (error) {
      run.log.warn({ path: rule.path, err: String(error) }, 'a field rule path could not be evaluated');
      continue;
    }
    for (const path of paths) {
      const value = valueAt(doc, path);
      if (value === undefined || value === null || isReference(value)) continue;
      const payload = fieldPayload(value, rule, doc, path, `${source}:${rule.path}`, run);
      await extractInto(rewrite, path, payload, `the field ${rule.path}`, run);
    }
  }
  return rewrite;
}

function fieldPayload(
  value: unknown,
  rule: FieldRule,
  doc: unknown,
  path: (string | number)[],
  source: string,
  { blobs }: LayerContext,
): Payload | string {
  const vars = { ...(isObject(doc) ? doc : {}), ...parentOf(doc, path) };
  const common = {
    mimeType: rule.mimeType,
    filename: rule.filename ? renderTemplate(rule.filename, vars) : undefined,
    metadata: siblingMetadata(doc, path, blobs),
    summaryTemplate: rule.summary,
    vars,
    source,
  };
  if (typeof value !== 'string') {
    // Strings kept as bytes are serialized as their inlaid markers: stored, they are their text again.
    const json = blobs.restoreInlaid(stringifyJson(value));
    return { ...common, data: { text: json }, mimeType: rule.mimeType ?? 'application/json' };
  }
  const encoding = rule.encoding ?? (rule.mimeType && isTextMimeType(rule.mimeType) ? 'utf-8' : 'base64');
  const literal = blobs.resolve(value);
  if (encoding === 'utf-8')
    return { ...common, data: { text: typeof literal === 'string' ? literal : literal.text() } };
  const invalidNote = `[mcp-offload: the field ${rule.path} (${source}) should hold base64 but does not; it was left as it is]`;
  const data = base64Data(literal);
  return data ? { ...common, data, invalidNote } : invalidNote;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
