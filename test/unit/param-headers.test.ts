import type { Tool } from '@modelcontextprotocol/server';
import { paramHeaderRejection } from '../../src/http/param-header-check.js';
import { decodeParamValue, paramDeclarations } from '../../src/protocol/param-header-codec.js';
import { paramHeaders } from '../../src/upstreams/param-headers.js';

// The Mcp-Param-* headers (SEP-2243) both ways: what the proxy mirrors toward a modern upstream is what it
// accepts from a modern client, and what it rejects is what an SDK server rejects.

const TOOL: Tool = {
  name: 'route',
  inputSchema: {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      priority: { type: 'integer', 'x-mcp-header': 'Priority' },
      verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
      nested: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
      query: { type: 'string' },
    },
  },
};

function call(args: Record<string, unknown>, id: string | number = 7): unknown {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'route', arguments: args } };
}

function check(body: unknown, headers: Record<string, string>) {
  return paramHeaderRejection(body, new Headers(headers), (name) => (name === TOOL.name ? TOOL : undefined));
}

describe('Mcp-Param-* headers', () => {
  test('what the upstream side mirrors, the downstream side accepts, base64 included', () => {
    const args = { region: 'Zürich ', priority: 3, verbose: false, nested: { zone: 'b' }, query: 'q' };
    const headers = paramHeaders(TOOL, args)!;
    expect(headers).toEqual({
      'Mcp-Param-Region': `=?base64?${Buffer.from('Zürich ').toString('base64')}?=`,
      'Mcp-Param-Priority': '3',
      'Mcp-Param-Verbose': 'false',
      'Mcp-Param-Zone': 'b',
    });
    expect(check(call(args), headers)).toBeUndefined();
  });

  test('a missing header, a different value and a malformed base64 value are HTTP 400 with -32020', () => {
    const missing = check(call({ region: 'eu', priority: 1 }), { 'Mcp-Param-Region': 'eu' });
    expect(missing).toMatchObject({ status: 400, body: { id: 7, error: { code: -32020 } } });
    expect(missing!.body.error.data).toEqual({
      mismatch: { header: 'Mcp-Param-Priority', body: expect.stringContaining('header is absent') },
    });
    const differs = check(call({ region: 'eu' }, 'x'), { 'mcp-param-region': 'us' });
    expect(differs).toMatchObject({ status: 400, body: { id: 'x', error: { code: -32020 } } });
    const malformed = check(call({ region: 'eu' }), { 'Mcp-Param-Region': '=?base64?ZXU?=' });
    expect(malformed!.body.error.message).toMatch(/invalid Base64 sentinel/);
  });

  test('numbers compare as numbers, absent and null arguments expect no header, other requests pass', () => {
    expect(check(call({ priority: 42 }), { 'Mcp-Param-Priority': '42.0' })).toBeUndefined();
    expect(check(call({ priority: 42 }), { 'Mcp-Param-Priority': '0x2a' })).toBeDefined();
    expect(check(call({ region: null, query: 'q' }), {})).toBeUndefined();
    expect(check(call({ region: 'eu' }), { 'Mcp-Param-Region': 'eu', 'Mcp-Param-Other': 'x' })).toBeUndefined();
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    expect(check(list, {})).toBeUndefined();
    const unknownTool = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'other', arguments: {} } };
    expect(check(unknownTool, {})).toBeUndefined();
  });

  test('a tool whose declarations break the rules has none to check, as in the SDK', () => {
    expect(paramDeclarations({ type: 'object', properties: { a: { type: 'object', 'x-mcp-header': 'A' } } })).toBe(
      undefined,
    );
    expect(
      paramDeclarations({
        type: 'object',
        properties: { a: { type: 'string', 'x-mcp-header': 'Dup' }, b: { type: 'string', 'x-mcp-header': 'dup' } },
      }),
    ).toBeUndefined();
    expect(
      paramDeclarations({ type: 'object', anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }),
    ).toBeUndefined();
    expect(decodeParamValue('=?base64?w7w=?=')).toBe('ü');
    expect(decodeParamValue('=?base64?/w==?=')).toBeUndefined();
  });
});
