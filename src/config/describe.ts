/** Plain-words descriptions of values, places in the document and what the schema expects. */
import { isPlainObject, isServerMapKey, valueAt } from './pointer.js';
import { resolveRef, typesOf, type JsonSchema } from './schema.js';

const LARGEST_TIMER = 2147483647;

/** Human descriptions of the schema's patterns; a new pattern without one falls back to the regex. */
const PATTERN_HINTS: Record<string, string> = {
  '^[A-Za-z0-9_-]{0,32}$': 'at most 32 letters, digits, "_" or "-"',
  '^[A-Za-z0-9_-]{1,4}$': '1 to 4 letters, digits, "_" or "-"',
  '^[Hh][Tt][Tt][Pp][Ss]?://': 'an http:// or https:// URL',
  '^[^/]+/[^/]+$': 'a "<server>/<tool>" glob, such as "files/read_*"',
};

export function describeValue(value: unknown): string {
  if (value === undefined || value === null) return 'nothing';
  if (typeof value === 'string') {
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  }
  if (Array.isArray(value)) return 'a list';
  if (isPlainObject(value)) return 'a mapping';
  return String(value);
}

/** What a value is called in a message: `"timeoutMs"`, `server "github"`, `item 2 of "args"`. */
export function describeSubject(segments: readonly string[], data: unknown): string {
  if (segments.length === 0) return 'the config file';
  const last = segments[segments.length - 1]!;
  const parentKey = segments[segments.length - 2];
  if (segments.length === 2 && isServerMapKey(parentKey)) return `server "${last}"`;
  if (Array.isArray(valueAt(data, segments.slice(0, -1)))) {
    return `item ${Number(last) + 1} of "${parentKey}"`;
  }
  if (segments.length === 4 && isServerMapKey(segments[0]) && (parentKey === 'env' || parentKey === 'headers')) {
    return `"${last}" in "${parentKey}"`;
  }
  return `"${last}"`;
}

/** Where an unknown key was found: `in server "github"`, `in "restart" of server "github"`. */
export function describePlace(segments: readonly string[]): string {
  if (segments.length === 0) return 'at the top level';
  if (isServerMapKey(segments[0]) && segments.length >= 2) {
    const server = `server "${segments[1]}"`;
    return segments.length === 2 ? `in ${server}` : `in "${segments.slice(2).join('.')}" of ${server}`;
  }
  return `in "${segments.join('.')}"`;
}

export function describeExpected(node: JsonSchema | undefined, segments: readonly string[]): string {
  const schema = resolveRef(node);
  if (!schema) return 'something else';
  const last = segments[segments.length - 1];
  if (segments.length === 1 && isServerMapKey(last)) return 'a mapping of server names to servers';
  if (segments.length === 2 && isServerMapKey(segments[0])) return 'a mapping with "command" or "url"';
  if (last === 'prefix' && typesOf(schema).includes('boolean')) {
    return `a prefix of ${PATTERN_HINTS['^[A-Za-z0-9_-]{0,32}$']}, or false for none`;
  }
  if (schema.enum) return `one of ${schema.enum.join(', ')}`;
  const phrases = typesOf(schema).map((type) => describeType(type, schema));
  return phrases.join(' or ') || 'something else';
}

function describeType(type: string, schema: JsonSchema): string {
  switch (type) {
    case 'integer':
    case 'number': {
      const noun = type === 'integer' ? 'integer' : 'number';
      const max = schema.maximum === LARGEST_TIMER ? undefined : schema.maximum;
      if (schema.minimum !== undefined && max !== undefined) return `an ${noun} from ${schema.minimum} to ${max}`;
      if (schema.minimum === 1) return `a positive ${noun}`;
      if (schema.minimum !== undefined) return `an ${noun} of ${schema.minimum} or more`;
      return `an ${noun}`;
    }
    case 'string':
      if (schema.pattern) return PATTERN_HINTS[schema.pattern] ?? `a string matching ${schema.pattern}`;
      return schema.minLength ? 'a non-empty string' : 'a string';
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'empty';
    case 'array': {
      const items = resolveRef(schema.items);
      return typesOf(items).includes('string') ? 'a list of strings' : 'a list';
    }
    case 'object': {
      const values = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
      return typesOf(values).includes('string') ? 'a mapping of names to strings' : 'a mapping';
    }
    default:
      return type;
  }
}
