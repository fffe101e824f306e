import type { Tool } from '@modelcontextprotocol/client';
import {
  DECLARATION_KEY,
  encodeParamValue,
  PARAM_HEADER_PREFIX,
  primitiveText,
  scanParamDeclarations,
} from '../protocol/param-header-codec.js';

/**
 * The `Mcp-Param-*` headers a `tools/call` to a modern server over HTTP carries (SEP-2243): a tool whose input
 * schema declares `x-mcp-header` on a property gets that argument mirrored in a header, and the server rejects a
 * call without it. The SDK builds them only inside its typed `callTool`, which a relay does not use; this follows
 * the same rules: declarations on properties reached through `properties` only, absent or non-primitive values
 * omitted, values that are not plain ASCII sent as `=?base64?…?=`.
 */
export function paramHeaders(tool: Tool | undefined, args: unknown): Record<string, string> | undefined {
  if (tool === undefined || !declaresAny(tool.inputSchema)) return undefined;
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
        headers[PARAM_HEADER_PREFIX + name] = encodeParamValue(text);
      visit(property, field);
    }
  };
  visit(tool.inputSchema, args);
  return Object.keys(headers).length ? headers : undefined;
}

/**
 * Whether a schema has `x-mcp-header` anywhere its `properties` lead (where paramHeaders looks), worked out once per
 * schema: most tools declare none, and their calls need not walk it.
 */
const declaring = new WeakMap<object, boolean>();

function declaresAny(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object') return false;
  let known = declaring.get(schema);
  if (known === undefined) declaring.set(schema, (known = declaresUnder(schema, new Set())));
  return known;
}

function declaresUnder(schema: object, seen: Set<object>): boolean {
  const properties = (schema as { properties?: unknown }).properties;
  if (properties === null || typeof properties !== 'object' || seen.has(properties)) return false;
  seen.add(properties);
  for (const property of Object.values(properties as Record<string, unknown>)) {
    if (property === null || typeof property !== 'object') continue;
    if (DECLARATION_KEY in property || declaresUnder(property, seen)) return true;
  }
  return false;
}

/**
 * The tools of a 2026-07-28 server over HTTP that a client may use: SEP-2243 has a client exclude a tool whose
 * `x-mcp-header` declarations break the rules (empty, not a header token, on a non-primitive or `number` property,
 * declared twice, out of reach of `properties`), since no call to it can carry the headers its server checks, and
 * warn naming the tool and the reason. The SDK's client does so in listTools; the proxy lists with requests of its
 * own, so it does so here, before the tools reach its catalog (and Upstream.send refuses a call that names one).
 */
export function usableTools(tools: Tool[], excluded: (tool: Tool, reason: string) => void): Tool[] {
  const usable = tools.filter((tool) => {
    const scan = scanParamDeclarations(tool.inputSchema);
    if (!scan.valid) excluded(tool, scan.reason);
    return scan.valid;
  });
  return usable.length === tools.length ? tools : usable;
}
