/**
 * The `Mcp-Param-*` headers of SEP-2243 (MCP 2026-07-28 over HTTP): a tool's input schema declares `x-mcp-header`
 * on a property, and a `tools/call` mirrors that argument into an `Mcp-Param-{Name}` header. The proxy meets them
 * on both sides (it mirrors arguments toward a modern upstream and checks a modern client's), and the SDK keeps its
 * codec internal, so both sides share this one, which follows the SDK's rules (packages/core-internal,
 * shared/mcpParamHeaders.ts) so that the proxy accepts and rejects exactly what an SDK server would.
 */

export const PARAM_HEADER_PREFIX = 'Mcp-Param-';
export const DECLARATION_KEY = 'x-mcp-header';

const BASE64_PREFIX = '=?base64?';
const BASE64_SUFFIX = '?=';
/** Canonical padded base64 only: the spec's examples and the conformance suite's bad-padding case require it. */
const BASE64_CANONICAL = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** One `x-mcp-header` declaration: where the argument is (property names from the root) and the header's name. */
export interface ParamDeclaration {
  path: readonly string[];
  name: string;
  type: string;
}

/** RFC 9110 token: no spaces, controls or delimiters, so the name is a valid header name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The types the spec allows a declaration on (2026-07-28 Streamable HTTP, "Schema Extension"). */
const PRIMITIVE_TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords a declaration must not sit under: only a chain of `properties` reaches a header. */
const UNREACHABLE = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
] as const;
const NAMED_SUBSCHEMAS = new Set<string>(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

/**
 * What a tool's input schema declares: its declarations, or the first rule one breaks (`reason`, worded for a log
 * line). A declaration on a `number` property breaks the spec's list of types, yet an SDK server still checks its
 * header; such a scan is invalid and keeps its declarations, and only a `number` declaration does.
 */
export type ParamScan =
  | { valid: true; declarations: ParamDeclaration[] }
  | { valid: false; reason: string; declarations?: ParamDeclaration[] };

/** The scan of a tool's input schema, by the rules of the SDK's scanXMcpHeaderDeclarations (kept internal there). */
export function scanParamDeclarations(inputSchema: unknown): ParamScan {
  const found: ParamDeclaration[] = [];
  const seen = new Map<string, string>();
  let numberFault: string | undefined;
  const visit = (node: unknown, path: readonly string[], reachable: boolean): string | undefined => {
    if (node === null || typeof node !== 'object') return undefined;
    const schema = node as Record<string, unknown>;
    const where = path.length ? path.join('.') : '<root>';
    if (DECLARATION_KEY in schema) {
      const name = schema[DECLARATION_KEY];
      const type = typeof schema.type === 'string' ? schema.type : undefined;
      if (!reachable || path.length === 0)
        return `${where}: ${DECLARATION_KEY} is allowed only on a property reached through 'properties' alone`;
      if (typeof name !== 'string' || name.length === 0)
        return `${where}: ${DECLARATION_KEY} is not a non-empty string`;
      if (!TOKEN.test(name))
        return `${where}: ${DECLARATION_KEY} ${JSON.stringify(name)} is not an RFC 9110 token (a space, control character, delimiter or non-ASCII character)`;
      if (type === undefined || !PRIMITIVE_TYPES.has(type)) {
        const fault = `${where}: ${DECLARATION_KEY} is allowed only on a string, integer or boolean property, not ${type ?? 'one without a type'}`;
        if (type !== 'number') return fault;
        numberFault ??= fault;
      }
      const other = seen.get(name.toLowerCase());
      if (other !== undefined)
        return `${where}: ${DECLARATION_KEY} ${JSON.stringify(name)} is declared twice (also as ${JSON.stringify(other)}; header names ignore case)`;
      seen.set(name.toLowerCase(), name);
      found.push({ path, name, type: type! });
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties as Record<string, unknown>)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault !== undefined) return fault;
      }
    }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? (sub as unknown[])
        : NAMED_SUBSCHEMAS.has(keyword) && sub !== null && typeof sub === 'object'
          ? Object.values(sub as Record<string, unknown>)
          : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault !== undefined) return fault;
      }
    }
    return undefined;
  };
  const fault = visit(inputSchema, [], true);
  if (fault !== undefined) return { valid: false, reason: numberFault ?? fault };
  if (numberFault !== undefined) return { valid: false, reason: numberFault, declarations: found };
  return { valid: true, declarations: found };
}

/**
 * The declarations a server checks the headers of a call against: undefined when the schema breaks a constraint
 * (the SDK's server then validates nothing for the tool: a client must not call such a tool at all), but for
 * `number` declarations, which an SDK server still checks.
 */
export function paramDeclarations(inputSchema: unknown): ParamDeclaration[] | undefined {
  return scanParamDeclarations(inputSchema).declarations;
}

/**
 * A tool definition's declarations (paramDeclarations), worked out once per definition: every 2026-07-28 call over
 * HTTP looks them up, on its way in and on its way to an upstream, and walking the schema cost it about 4 µs. A
 * catalog makes new definitions when a server's list changes.
 */
const declarationsByTool = new WeakMap<object, ParamDeclaration[] | undefined>();

export function declarationsOf(tool: { inputSchema?: unknown }): ParamDeclaration[] | undefined {
  if (!declarationsByTool.has(tool)) declarationsByTool.set(tool, paramDeclarations(tool.inputSchema));
  return declarationsByTool.get(tool);
}

/** The argument at `path` of a call's arguments (undefined where the path leaves objects). */
export function argumentAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A primitive argument as header text; undefined for what no header carries (objects, non-finite, unsafe numbers). */
export function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value)))
    return String(value);
  return undefined;
}

/** A header value as the spec has it: plain ASCII as is, anything else (or what looks encoded) in base64. */
export function encodeParamValue(text: string): string {
  const plain =
    text.length > 0 &&
    text === text.trim() &&
    !(text.startsWith(BASE64_PREFIX) && text.endsWith(BASE64_SUFFIX)) &&
    [...text].every((c) => c === '\t' || (c >= ' ' && c <= '~'));
  return plain ? text : `${BASE64_PREFIX}${Buffer.from(text, 'utf8').toString('base64')}${BASE64_SUFFIX}`;
}

/** A header's value decoded; undefined when it carries the base64 sentinel around something not canonical UTF-8. */
export function decodeParamValue(value: string): string | undefined {
  if (!(value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX))) return value;
  const encoded = value.slice(BASE64_PREFIX.length, value.length - BASE64_SUFFIX.length);
  if (!BASE64_CANONICAL.test(encoded)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(encoded, 'base64'));
  } catch {
    return undefined;
  }
}
