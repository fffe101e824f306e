/** Turns ajv's errors into plain sentences anchored at a key or a value of the document. */
import type { ErrorObject } from 'ajv';
import { describeExpected, describePlace, describeSubject, describeValue } from './describe.js';
import { isPlainObject, isServerMapKey, joinPointer, splitPointer } from './pointer.js';
import type { JsonSchema } from './schema.js';
import { closestKey } from './suggest.js';

export interface RawProblem {
  pointer: string;
  /** Point at the key naming the value (unknown or missing keys) or at the value itself. */
  anchor: 'key' | 'value';
  message: string;
}

export function translateAjvError(error: ErrorObject, data: unknown): RawProblem | undefined {
  const segments = splitPointer(error.instancePath);
  const subject = describeSubject(segments, data);
  const parentSchema = error.parentSchema as JsonSchema | undefined;
  const params = error.params as Record<string, unknown>;

  // Inside `propertyNames`, ajv reports against the key itself.
  if (error.propertyName !== undefined) {
    const what = isServerMapKey(segments[segments.length - 1]) ? 'a server name' : 'a key';
    return {
      pointer: joinPointer(error.instancePath, error.propertyName),
      anchor: 'key',
      message: `${what} must not be empty`,
    };
  }

  switch (error.keyword) {
    case 'propertyNames':
      return undefined; // the error inside it says it better
    case 'additionalProperties':
      return unknownKey(String(params.additionalProperty), error.instancePath, segments, parentSchema, data);
    case 'required':
      return {
        pointer: error.instancePath,
        anchor: 'key',
        message: `${subject} is missing the required key "${String(params.missingProperty)}"`,
      };
    case 'maximum':
      return valueProblem(
        error,
        `${subject} must be at most ${String(params.limit)}, got ${describeValue(error.data)}`,
      );
    case 'minLength':
      return valueProblem(error, `${subject} must not be empty`);
    case 'type':
    case 'enum':
    case 'const':
    case 'pattern':
    case 'minimum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'format':
      return valueProblem(
        error,
        `${subject} must be ${describeExpected(parentSchema, segments)}, got ${describeValue(error.data)}${misplacedSetting(segments, data)}`,
      );
    default:
      return valueProblem(error, `${subject} ${error.message ?? 'is not valid'}`);
  }
}

/**
 * A "server" named like a server's own setting (`args`, `env`, ...) is almost always that setting indented
 * as a server name: say so.
 */
function misplacedSetting(segments: readonly string[], data: unknown): string {
  if (segments.length !== 2 || !isServerMapKey(segments[0])) return '';
  const name = segments[1]!;
  const servers = Object.keys(((data as Record<string, unknown>)[segments[0]!] ?? {}) as object);
  const above = servers[servers.indexOf(name) - 1];
  if (!SERVER_SETTINGS.has(name) || above === undefined) return '';
  return `; "${name}" looks like a setting of server "${above}" indented as a server name: indent it under "${above}"`;
}

const SERVER_SETTINGS = new Set([
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'headers',
  'transport',
  'type',
  'prefix',
  'tools',
  'timeoutMs',
  'whenDown',
  'restart',
  'pipeline',
  'enabled',
  'abp',
]);

function valueProblem(error: ErrorObject, message: string): RawProblem {
  return { pointer: error.instancePath, anchor: 'value', message };
}

function unknownKey(
  key: string,
  parentPointer: string,
  segments: string[],
  parentSchema: JsonSchema | undefined,
  data: unknown,
): RawProblem {
  const allowed = Object.keys(parentSchema?.properties ?? {});
  const pointer = joinPointer(parentPointer, key);
  let hint = '';
  const suggestion = closestKey(key, allowed);
  if (suggestion !== undefined) {
    hint = ` (did you mean "${suggestion}"?)`;
  } else if (segments.length === 0 && looksLikeServer(data, key)) {
    hint = ' (servers go under "servers:")';
  }
  return { pointer, anchor: 'key', message: `unknown key "${key}" ${describePlace(segments)}${hint}` };
}

function looksLikeServer(data: unknown, key: string): boolean {
  const value = isPlainObject(data) ? data[key] : undefined;
  return isPlainObject(value) && ('command' in value || 'url' in value);
}
