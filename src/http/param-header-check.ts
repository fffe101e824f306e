import type { Tool } from '@modelcontextprotocol/server';
import {
  argumentAt,
  declarationsOf,
  decodeParamValue,
  PARAM_HEADER_PREFIX,
  primitiveText,
} from '../protocol/param-header-codec.js';

/** JSON-RPC HeaderMismatch: the request's headers and its body disagree. */
const HEADER_MISMATCH = -32020;
/** Strict decimal, so that `0x1a`, ` 42 ` or `1e3` in a header never equal a number. */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** What a rejected call is answered: HTTP 400 and a JSON-RPC error, as an SDK server gives. */
export interface ParamHeaderRejection {
  status: 400;
  body: { jsonrpc: '2.0'; id: string | number; error: { code: number; message: string; data: unknown } };
}

/**
 * SEP-2243's server side for a modern `tools/call` over HTTP: every argument the called tool declares `x-mcp-header`
 * for must arrive in its `Mcp-Param-{Name}` header too, with the same value. The SDK's HTTP entry checks this only
 * for tools an McpServer registered; the gateway serves tools/call through a catch-all handler, so the check is made
 * here against the tool as the client saw it in tools/list (the merged catalog's definition). Same rules and answer
 * as the SDK's: an absent or null argument expects no header, integers and numbers compare as numbers, a malformed
 * base64 value is rejected. Undefined when the call may go on.
 */
export function paramHeaderRejection(
  body: unknown,
  headers: Pick<Headers, 'get'>,
  toolNamed: (name: string) => Tool | undefined,
): ParamHeaderRejection | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { method, id, params } = body as {
    method?: unknown;
    id?: unknown;
    params?: { name?: unknown; arguments?: unknown };
  };
  if (method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  if (typeof params?.name !== 'string') return undefined;
  const tool = toolNamed(params.name);
  if (tool === undefined) return undefined;
  for (const declaration of declarationsOf(tool) ?? []) {
    const value = argumentAt(params.arguments, declaration.path);
    const text = primitiveText(value);
    // A missing or non-primitive argument is the arguments' validation's business, not the headers'.
    if (value === undefined || value === null || text === undefined) continue;
    const header = PARAM_HEADER_PREFIX + declaration.name;
    const where = declaration.path.join('.');
    const sent = headers.get(header);
    if (sent === null)
      return reject(
        id,
        header,
        `the body carries ${where}=${JSON.stringify(value)} but the ${header} header is absent`,
      );
    const decoded = decodeParamValue(sent);
    if (decoded === undefined)
      return reject(id, header, `the ${header} header carries an invalid Base64 sentinel value`);
    const numeric =
      (declaration.type === 'integer' || declaration.type === 'number') &&
      typeof value === 'number' &&
      DECIMAL.test(decoded);
    if (numeric ? Number(decoded) !== value : decoded !== text) {
      return reject(
        id,
        header,
        `the ${header} header decodes to ${JSON.stringify(decoded)} but the body carries ${where}=${JSON.stringify(value)}`,
      );
    }
  }
  return undefined;
}

function reject(id: string | number, header: string, detail: string): ParamHeaderRejection {
  return {
    status: 400,
    body: {
      jsonrpc: '2.0',
      id,
      error: {
        code: HEADER_MISMATCH,
        message: `Bad Request: the request headers and body disagree: ${detail}`,
        data: { mismatch: { header, body: detail } },
      },
    },
  };
}
