import type { Tool } from '@modelcontextprotocol/client';

const DECLARATION_KEY = 'x-mcp-header';
const HEADER_PREFIX = 'Mcp-Param-';
const BASE64_PREFIX = '=?base64?';
const BASE64_SUFFIX = '?=';

/**
 * The `Mcp-Param-*` headers a `tools/call` to a modern server over HTTP carries (SEP-2243): a tool whose input
 * schema declares `x-mcp-header` on a property gets that argument mirrored in a header, and the server rejects a
 * call without it. The SDK builds them only inside its typed `callTool`, which a relay does not use; this follows
 * the same rules: declarations on properties reached through `properties` only, absent or non-primitive values
 * omitted, values that are not plain ASCII sent as `=?base64?…?=`.
 */
export function paramHeaders(tool: Tool | undefined, args: unknown): Record<string, string> | undefined {
  if (tool === undefined) return undefined;
  const headers: Record<string, string> = {};
  const visit = (schema: unknown, value: unknown): void => {
    const properties = (schema as { properties?: unknown } | undefined)?.properties;
    if (properties === null || typeof properties !== 'object') return;
    for (const [key, property] of Object.entries(properties as Record<string, unknown>)) {
      if (property === null || typeof property !== 'object') continue;
      const field = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
      const name = (property as Record<string, unknown>)[DECLARATION_KEY];
      const text = primitiveText(field);
      if (typeof name === 'string' && name.length > 0 && text !== undefined)
        headers[HEADER_PREFIX + name] = encode(text);
      visit(property, field);
    }
  };
  visit(tool.inputSchema, args);
  return Object.keys(headers).length ? headers : undefined;
}

function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value)))
    return String(value);
  return undefined;
}

/** A header value as the spec has it: plain ASCII as is, anything else (or what looks encoded) in base64. */
function encode(text: string): string {
  const plain =
    text.length > 0 &&
    text === text.trim() &&
    !(text.startsWith(BASE64_PREFIX) && text.endsWith(BASE64_SUFFIX)) &&
    [...text].every((c) => c === '\t' || (c >= ' ' && c <= '~'));
  return plain ? text : `${BASE64_PREFIX}${Buffer.from(text, 'utf8').toString('base64')}${BASE64_SUFFIX}`;
}
