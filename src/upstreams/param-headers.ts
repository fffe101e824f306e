import type { Tool } from '@modelcontextprotocol/client';
import {
  argumentAt,
  declarationsOf,
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
 * omitted, values that are not plain ASCII sent as `=?base64?…?=`. The declarations are the ones the inbound check
 * reads (declarationsOf, once per definition): a tool whose declarations break the rules is not in the catalog the
 * proxy calls from (usableTools below; Upstream.send refuses it by name), so what a call meets is a valid scan's.
 */
export function paramHeaders(tool: Tool | undefined, args: unknown): Record<string, string> | undefined {
  const declarations = tool === undefined ? undefined : declarationsOf(tool);
  if (!declarations?.length) return undefined;
  const headers: Record<string, string> = {};
  for (const declaration of declarations) {
    const text = primitiveText(argumentAt(args, declaration.path));
    if (text !== undefined) headers[PARAM_HEADER_PREFIX + declaration.name] = encodeParamValue(text);
  }
  return Object.keys(headers).length ? headers : undefined;
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
