import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Tool } from '@modelcontextprotocol/server';

/**
 * Tools' input schemas come in both dialects MCP servers use: JSON Schema draft-07 (most SDK v1 servers, zod's
 * older converters) and 2020-12 (MCP's default since 2025-11-25). A schema that names draft-04/06/07 is checked as
 * such; every other one as 2020-12. Formats are not checked (no server relies on the proxy for that) and unknown
 * keywords are allowed: the check is there to catch a wrong or missing argument before the upstream is called.
 */
const draft07 = new Ajv({ strict: false, allErrors: false, validateFormats: false });
const draft2020 = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
const compiled = new WeakMap<object, ValidateFunction | null>();

function validatorOf(schema: Tool['inputSchema']): ValidateFunction | null {
  let validate = compiled.get(schema);
  if (validate !== undefined) return validate;
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  const ajv = /draft-0[4-7]/.test(dialect) ? draft07 : draft2020;
  try {
    // $schema and $id are the server's: ajv would look the one up and remember the other across tools.
    const { $schema: _dialect, $id: _id, ...rest } = schema as Record<string, unknown>;
    validate = ajv.compile(rest);
  } catch {
    validate = null; // a schema ajv cannot compile: the upstream is the judge of its own arguments
  }
  compiled.set(schema, validate);
  return validate;
}

/** Why these arguments do not fit the tool's input schema, naming the argument; `undefined` if they fit. */
export function argumentProblem(tool: Tool, args: unknown): string | undefined {
  const validate = validatorOf(tool.inputSchema);
  if (!validate || validate(args ?? {})) return undefined;
  return describe(validate.errors?.[0]);
}

function describe(error: ErrorObject | undefined): string {
  if (!error) return 'the arguments do not match the input schema';
  const at = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const where = at.length ? `argument "${at.join('.')}"` : 'the arguments';
  const params = error.params as { missingProperty?: string; additionalProperty?: string; allowedValues?: unknown[] };
  if (error.keyword === 'required') return `missing required argument "${[...at, params.missingProperty].join('.')}"`;
  if (error.keyword === 'additionalProperties')
    return `unknown argument "${[...at, params.additionalProperty].join('.')}"`;
  if (error.keyword === 'enum') return `${where} must be one of ${JSON.stringify(params.allowedValues)}`;
  return `${where} ${error.message ?? 'is invalid'}`;
}
