// cspell:ignore Région
import type { Tool } from '@modelcontextprotocol/server';
import { paramHeaderRejection } from '../../src/http/param-header-check.js';
import { decodeParamValue, paramDeclarations, scanParamDeclarations } from '../../src/protocol/param-header-codec.js';
import { paramHeaders, usableTools } from '../../src/upstreams/param-headers.js';

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

  test('a modern HTTP upstream keeps only tools whose declarations hold, and says why it left each other one out', () => {
    const tool = (name: string, properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Tool => ({
      name,
      inputSchema: { type: 'object', properties, ...extra } as Tool['inputSchema'],
    });
    const tools = [
      TOOL,
      tool('plain', { q: { type: 'string' } }),
      tool('empty', { v: { type: 'string', 'x-mcp-header': '' } }),
      tool('object', { v: { type: 'object', 'x-mcp-header': 'V' } }),
      tool('untyped', { v: { 'x-mcp-header': 'V' } }),
      tool('number', { v: { type: 'number', 'x-mcp-header': 'Score' } }),
      tool('twice', {
        a: { type: 'string', 'x-mcp-header': 'MyField' },
        b: { type: 'string', 'x-mcp-header': 'myfield' },
      }),
      tool('colon', { v: { type: 'string', 'x-mcp-header': 'Region:Primary' } }),
      tool('accent', { v: { type: 'string', 'x-mcp-header': 'Région' } }),
      tool('tab', { v: { type: 'string', 'x-mcp-header': 'Region\t1' } }),
      tool('in-items', { v: { type: 'array', items: { type: 'string', 'x-mcp-header': 'V' } } }),
      tool('in-defs', {}, { $defs: { d: { type: 'string', 'x-mcp-header': 'V' } } }),
    ];
    const excluded: Array<[string, string]> = [];
    const kept = usableTools(tools, (t, reason) => excluded.push([t.name, reason]));
    expect(kept.map((t) => t.name)).toEqual(['route', 'plain']);
    expect(excluded).toEqual([
      ['empty', 'v: x-mcp-header is not a non-empty string'],
      ['object', 'v: x-mcp-header is allowed only on a string, integer or boolean property, not object'],
      ['untyped', 'v: x-mcp-header is allowed only on a string, integer or boolean property, not one without a type'],
      ['number', 'v: x-mcp-header is allowed only on a string, integer or boolean property, not number'],
      ['twice', 'b: x-mcp-header "myfield" is declared twice (also as "MyField"; header names ignore case)'],
      ['colon', expect.stringMatching(/^v: x-mcp-header "Region:Primary" is not an RFC 9110 token/)],
      ['accent', expect.stringMatching(/^v: x-mcp-header "Région" is not an RFC 9110 token/)],
      ['tab', expect.stringMatching(/^v: x-mcp-header "Region\\t1" is not an RFC 9110 token/)],
      ['in-items', "v.<items>: x-mcp-header is allowed only on a property reached through 'properties' alone"],
      ['in-defs', "<$defs>: x-mcp-header is allowed only on a property reached through 'properties' alone"],
    ]);
    // Nothing left out: the very same list.
    expect(usableTools([TOOL], () => undefined)).toEqual([TOOL]);
  });

  test('a number declaration makes the tool unusable to a client, yet a server still checks its header, as the SDK does', () => {
    const schema = { type: 'object', properties: { score: { type: 'number', 'x-mcp-header': 'Score' } } };
    expect(scanParamDeclarations(schema)).toMatchObject({ valid: false, declarations: [{ name: 'Score' }] });
    expect(paramDeclarations(schema)).toEqual([{ path: ['score'], name: 'Score', type: 'number' }]);
    const alsoBroken = {
      type: 'object',
      properties: { ...schema.properties, o: { type: 'object', 'x-mcp-header': 'O' } },
    };
    expect(scanParamDeclarations(alsoBroken)).toEqual({
      valid: false,
      reason: expect.stringMatching(/^score: .* not number$/),
    });
    expect(paramDeclarations(alsoBroken)).toBeUndefined();
  });
});

describe('Mcp-Param-* headers toward a 2026-07-28 upstream', () => {
  test('a declaration found only deep under properties still makes its header; a tool without one makes none', () => {
    const deep: Tool = {
      name: 'deep',
      inputSchema: {
        type: 'object',
        properties: {
          a: {
            type: 'object',
            properties: { b: { type: 'object', properties: { c: { type: 'string', 'x-mcp-header': 'C' } } } },
          },
        },
      },
    };
    expect(paramHeaders(deep, { a: { b: { c: 'x' } } })).toEqual({ 'Mcp-Param-C': 'x' });
    const plain: Tool = { name: 'plain', inputSchema: { type: 'object', properties: { c: { type: 'string' } } } };
    expect(paramHeaders(plain, { c: 'x' })).toBeUndefined();
  });
});
