/**
 * config/schema.json, read at run time (it ships in the package next to dist/) and compiled once.
 * The path is the same from src/config/*.ts under ts-jest and from dist/config/*.js.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  definitions?: Record<string, JsonSchema>;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  description?: string;
  [keyword: string]: unknown;
};

export const SCHEMA_URL = new URL('../../config/schema.json', import.meta.url);

let schema: JsonSchema | undefined;
let validator: ValidateFunction | undefined;

export function configSchema(): JsonSchema {
  schema ??= JSON.parse(readFileSync(SCHEMA_URL, 'utf8')) as JsonSchema;
  return schema;
}

export function configValidator(): ValidateFunction {
  if (!validator) {
    // strict: a mistake in schema.json throws here rather than being logged and ignored.
    // verbose: errors carry the failing data and schema, which the messages are built from.
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true });
    validator = ajv.compile(configSchema());
  }
  return validator;
}

/** Follows a local `$ref` (`#/definitions/x`); the schema uses no other kind. */
export function resolveRef(node: JsonSchema | undefined): JsonSchema | undefined {
  let current = node;
  for (let hops = 0; current?.$ref !== undefined && hops < 16; hops += 1) {
    const name = current.$ref.replace(/^#\/definitions\//, '');
    current = configSchema().definitions?.[name];
  }
  return current;
}

export function typesOf(node: JsonSchema | undefined): string[] {
  if (!node?.type) return [];
  return Array.isArray(node.type) ? node.type : [node.type];
}
