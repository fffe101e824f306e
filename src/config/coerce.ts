/**
 * Lenient scalar coercion before validation, driven by the schema:
 * - a number or boolean where text is expected becomes its source text (`args: [--port, 8080]`,
 *   `env: {DEBUG: true}`, `version: 1.10` stays "1.10");
 * - text that is a whole number where a number is expected becomes that number, and "true"/"false"
 *   where a boolean is expected become booleans — so `port: ${PORT:-8080}` works.
 * `null` is never coerced: an empty value is reported, not silently turned into "" or 0.
 */
import { hasOwn, isPlainObject, joinPointer } from './pointer.js';
import { resolveRef, typesOf, type JsonSchema } from './schema.js';
import type { NodeInfo } from './yaml-tree.js';

export function coerceScalars(
  value: unknown,
  node: JsonSchema | undefined,
  pointer: string,
  nodes: Map<string, NodeInfo>,
): unknown {
  const schema = resolveRef(node);
  if (!schema) return value;
  const types = typesOf(schema);
  if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      const child =
        schema.properties && hasOwn(schema.properties, key)
          ? schema.properties[key]
          : typeof schema.additionalProperties === 'object'
            ? schema.additionalProperties
            : undefined;
      if (child) value[key] = coerceScalars(value[key], child, joinPointer(pointer, key), nodes);
    }
    return value;
  }
  if (Array.isArray(value)) {
    if (!schema.items) return value;
    return value.map((item, index) => coerceScalars(item, schema.items, joinPointer(pointer, index), nodes));
  }
  if (types.length === 0 || matchesType(value, types)) return value;
  if ((typeof value === 'number' || typeof value === 'boolean') && types.includes('string')) {
    return nodes.get(pointer)?.text ?? String(value);
  }
  if (typeof value === 'string') {
    const text = value.trim();
    if ((types.includes('integer') || types.includes('number')) && /^[+-]?\d+$/.test(text)) return Number(text);
    if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  }
  return value;
}

function matchesType(value: unknown, types: string[]): boolean {
  return types.some((type) => {
    switch (type) {
      case 'null':
        return value === null;
      case 'integer':
        return Number.isInteger(value);
      case 'array':
        return Array.isArray(value);
      case 'object':
        return isPlainObject(value);
      default:
        return typeof value === type;
    }
  });
}
