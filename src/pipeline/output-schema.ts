import { REFERENCE_SCHEMA } from './reference.js';
import type { PipelineSettings } from './settings.js';

type Schema = Record<string, unknown>;

/** String formats too short or too structured to ever hold a payload. */
const SMALL_FORMATS = new Set(['date', 'date-time', 'time', 'duration', 'email', 'idn-email', 'hostname', 'idn-hostname', 'ipv4', 'ipv6', 'uuid', 'json-pointer', 'relative-json-pointer', 'regex']);
/** Keys that hold subschemas, one or a list or a map of them. */
const ONE = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** Kept at the root when the rest moves into anyOf: `$ref`s point at them from the root. */
const ROOT_ONLY = ['$schema', '$id', '$defs', 'definitions', 'type', 'title', 'description'];

/**
 * The output schema a client is shown for a tool whose results the pipeline may rewrite: every
 * place a reference can replace a value also accepts the reference's shape, so an SDK client that
 * validates structuredContent accepts the rewritten result. Where that is: strings that could
 * hold a payload, ABP BinaryData shapes, the fields a rule names, and the root (the size safety
 * net and mode `file` may replace the whole structuredContent). The input is not modified.
 */
export function rewriteOutputSchema(schema: Schema, settings: PipelineSettings): Schema {
  if (settings.mode === 'passthrough') return schema;
  const fieldNames = new Set(settings.fields.flatMap((f) => lastSegment(f.path)));
  const walked = walk(schema, settings.minBinaryLength, fieldNames, undefined) as Schema;
  const root: Schema = { type: 'object' };
  const rest: Schema = {};
  for (const [key, value] of Object.entries(walked)) {
    if (ROOT_ONLY.includes(key)) root[key] = value;
    else rest[key] = value;
  }
  return { ...root, anyOf: [rest, REFERENCE_SCHEMA] };
}

function walk(node: unknown, minLength: number, fieldNames: Set<string>, propertyName: string | undefined): unknown {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return node;
  const schema = node as Schema;
  const copy: Schema = { ...schema };
  for (const key of ONE) if (isSchema(schema[key])) copy[key] = walk(schema[key], minLength, fieldNames, undefined);
  for (const key of LIST) {
    if (Array.isArray(schema[key])) copy[key] = (schema[key] as unknown[]).map((s) => walk(s, minLength, fieldNames, undefined));
  }
  for (const key of MAP) {
    const map = schema[key];
    if (!isSchema(map)) continue;
    copy[key] = Object.fromEntries(
      Object.entries(map).map(([name, s]) => [name, walk(s, minLength, fieldNames, key === 'properties' ? name : undefined)]),
    );
  }
  const named = propertyName !== undefined && fieldNames.has(propertyName);
  return named || mayHoldPayload(schema, minLength) ? { anyOf: [copy, REFERENCE_SCHEMA] } : copy;
}

function mayHoldPayload(schema: Schema, minLength: number): boolean {
  if (schema.enum !== undefined || schema.const !== undefined) return false;
  if (typesOf(schema).includes('string')) {
    if (typeof schema.maxLength === 'number' && schema.maxLength < minLength) return false;
    return !(typeof schema.format === 'string' && SMALL_FORMATS.has(schema.format));
  }
  const properties = isSchema(schema.properties) ? schema.properties : {};
  return ('content' in properties || 'downloadUrl' in properties) && 'mimeType' in properties;
}

function typesOf(schema: Schema): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  return Array.isArray(schema.type) ? (schema.type as string[]) : [];
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The property name a field path ends in: `result.pdf_data` → pdf_data, `$.items[*].file` → file. */
function lastSegment(path: string): string[] {
  const match = /([A-Za-z_$][\w$-]*)['"\]]*$/.exec(path.replace(/\[\*\]|\[\d+\]$/g, ''));
  return match ? [match[1]] : [];
}
