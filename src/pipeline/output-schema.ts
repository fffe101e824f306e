import type { PipelineSettings } from './settings.js';

type Schema = Record<string, unknown>;

/** The name of the reference's schema in a widened output schema's `$defs`. */
export const REFERENCE_DEF = 'mcp-offload-artifact';
/** What a reference must look like to pass: `{"$artifact": "artifact://…", ...}`. Kept small: every tool carries it. */
const REFERENCE_DEF_SCHEMA = { type: 'object', required: ['$artifact'] };
const REFERENCE_REF = { $ref: `#/$defs/${REFERENCE_DEF}` };

/** Keys that hold subschemas, one or a list or a map of them. */
const ONE = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** Kept at the root when the rest moves into anyOf: `$ref`s point at them from the root. */
const ROOT_ONLY = ['$schema', '$id', '$defs', 'definitions', 'type', 'title', 'description'];

/**
 * The output schema a client is shown for a tool whose results the pipeline may rewrite. Rewrites keep
 * the declared type where they can (a string holding a payload becomes the artifact's URI, an ABP
 * BinaryData keeps its shape with the URI as its content), so most schemas are shown as the upstream
 * wrote them. Where a reference object `{"$artifact": …}` can take a value's place, the schema accepts it
 * through one `$ref` to a small `$defs` entry: at the root when the document can outgrow the limit
 * without any long string (arrays, open maps) or in mode file, at a field a rule names, and at an ABP
 * BinaryDataReference (a download becomes a file). The input is not modified.
 */
export function rewriteOutputSchema(schema: Schema, settings: PipelineSettings): Schema {
  if (settings.mode === 'passthrough') return schema;
  const fieldNames = new Set(settings.fields.flatMap((f) => lastSegment(f.path)));
  const wholeFileMode = settings.jsonPayloads === 'summaries';
  const walked = walk(schema, fieldNames, wholeFileMode, undefined);
  const replaceableRoot = wholeFileMode || canGrowWithoutStrings(schema);
  if (walked === schema && !replaceableRoot) return schema;
  const defs = { ...(isSchema(schema.$defs) ? schema.$defs : {}), [REFERENCE_DEF]: REFERENCE_DEF_SCHEMA };
  if (!replaceableRoot) return { ...(walked as Schema), $defs: defs };
  const root: Schema = { type: 'object' };
  const rest: Schema = {};
  for (const [key, value] of Object.entries(walked as Schema)) {
    if (ROOT_ONLY.includes(key)) root[key] = value;
    else rest[key] = value;
  }
  return { ...root, anyOf: [rest, REFERENCE_REF], $defs: defs };
}

/** The schema with `anyOf: [itself, $ref]` where a reference object may stand; the same object when nowhere. */
function walk(node: unknown, fieldNames: Set<string>, fileMode: boolean, propertyName: string | undefined): unknown {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return node;
  const schema = node as Schema;
  let copy: Schema | undefined;
  const set = (key: string, value: unknown) => {
    if (value === schema[key]) return;
    copy ??= { ...schema };
    copy[key] = value;
  };
  for (const key of ONE) if (isSchema(schema[key])) set(key, walk(schema[key], fieldNames, fileMode, undefined));
  for (const key of LIST) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    const walked = list.map((s) => walk(s, fieldNames, fileMode, undefined));
    if (walked.some((s, i) => s !== list[i])) set(key, walked);
  }
  for (const key of MAP) {
    const map = schema[key];
    if (!isSchema(map)) continue;
    const entries = Object.entries(map).map(([name, s]) => [
      name,
      walk(s, fieldNames, fileMode, key === 'properties' ? name : undefined),
    ]);
    if (entries.some(([name, s]) => s !== map[name as string])) set(key, Object.fromEntries(entries));
  }
  const named = propertyName !== undefined && fieldNames.has(propertyName);
  const widened = named || isAbpShape(schema, fileMode);
  return widened ? { anyOf: [copy ?? schema, REFERENCE_REF] } : (copy ?? schema);
}

/** A BinaryDataReference is replaced by a reference once downloaded; in mode file, BinaryData too. */
function isAbpShape(schema: Schema, fileMode: boolean): boolean {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  if (!('mimeType' in properties)) return false;
  return 'downloadUrl' in properties || (fileMode && 'content' in properties);
}

/**
 * Whether a document of this schema can be long with no long string in it: it has an array, or an
 * object open to any number of properties. Otherwise replacing its long strings always brings it under
 * the limit, and the root never needs to give way to a reference.
 */
function canGrowWithoutStrings(node: unknown): boolean {
  if (typeof node !== 'object' || node === null) return false;
  if (Array.isArray(node)) return node.some(canGrowWithoutStrings);
  const schema = node as Schema;
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : [];
  if (types.includes('array') || schema.items !== undefined || schema.prefixItems !== undefined) return true;
  const objectLike = types.includes('object') || schema.properties !== undefined;
  if (objectLike && schema.additionalProperties !== false && schema.unevaluatedProperties !== false) return true;
  if (schema.patternProperties !== undefined) return true;
  return Object.entries(schema).some(
    ([key, value]) => key !== 'enum' && key !== 'const' && key !== 'examples' && canGrowWithoutStrings(value),
  );
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The property name a field path ends in: `result.pdf_data` → pdf_data, `$.items[*].file` → file. */
function lastSegment(path: string): string[] {
  const match = /([A-Za-z_$][\w$-]*)['"\]]*$/.exec(path.replace(/\[\*\]|\[\d+\]$/g, ''));
  return match ? [match[1]] : [];
}
