/**
 * Arguments are checked against the capability's `inputSchema` before anything reaches the page, so
 * the model gets every problem at once in plain words instead of an app's first complaint.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Logger } from '../../logger.js';

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

/** Formats are not checked (the app does that); a schema's unknown keywords are tolerated. */
const AJV_OPTIONS = { allErrors: true, strict: false, validateFormats: false } as const;

export class ArgumentValidator {
  private readonly engines = new Map<string, AnyAjv>();
  private readonly compiled = new WeakMap<object, ValidateFunction | null>();

  constructor(private readonly log: Logger) {}

  /** Undefined when the arguments fit (or the schema cannot be compiled); otherwise the message for the client. */
  check(capability: string, schema: Record<string, unknown> | undefined, params: unknown): string | undefined {
    if (!schema) return undefined;
    const validate = this.validatorFor(capability, schema);
    if (!validate || validate(params)) return undefined;
    const problems = (validate.errors ?? []).map(describe);
    return `Invalid arguments for ${capability}: ${[...new Set(problems)].join('; ')}`;
  }

  private validatorFor(capability: string, schema: Record<string, unknown>): ValidateFunction | null {
    let validate = this.compiled.get(schema);
    if (validate !== undefined) return validate;
    try {
      validate = this.engine(schema).compile(schema);
    } catch (error) {
      // A broken schema is the app's problem: the call goes on and the app answers for itself.
      this.log.warn(
        { capability, err: error instanceof Error ? error.message : String(error) },
        'cannot compile the input schema; arguments are not checked',
      );
      validate = null;
    }
    this.compiled.set(schema, validate);
    return validate;
  }

  private engine(schema: Record<string, unknown>): AnyAjv {
    const dialect = String(schema.$schema ?? '');
    const key = dialect.includes('2020-12') ? '2020' : dialect.includes('2019-09') ? '2019' : 'draft-07';
    let engine = this.engines.get(key);
    if (!engine) {
      engine =
        key === '2020' ? new Ajv2020(AJV_OPTIONS) : key === '2019' ? new Ajv2019(AJV_OPTIONS) : new Ajv(AJV_OPTIONS);
      this.engines.set(key, engine);
    }
    return engine;
  }
}

function describe(error: ErrorObject): string {
  const where = error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : 'the arguments';
  switch (error.keyword) {
    case 'required':
      return `missing required property "${String(error.params.missingProperty)}"${error.instancePath ? ` in ${where}` : ''}`;
    case 'additionalProperties':
      return `unknown property "${String(error.params.additionalProperty)}"${error.instancePath ? ` in ${where}` : ''}`;
    case 'enum':
      return `${where} must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}
