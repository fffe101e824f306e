import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { Tool } from '@modelcontextprotocol/server';
import { paramHeaderRejection } from '../../src/http/param-header-check.js';
import { headerReader } from '../../src/http/post-kind.js';
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

describe('headerReader: Node request headers read as the web Headers reads them', () => {
  /** The requests Node's HTTP parser makes of raw header lines, handed to `read` as they arrive. */
  async function parsed(heads: string[], read: (req: IncomingMessage) => void): Promise<void> {
    const server = createServer((req, res) => {
      read(req);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (const head of heads) {
        await new Promise<void>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () =>
            socket.end(`POST /mcp HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${head}Content-Length: 0\r\n\r\n`),
          );
          socket.on('error', reject).on('close', () => resolve());
          socket.resume();
        });
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }

  /** What the check read before: a web Headers filled from the request's headers. */
  function webHeaders(req: IncomingMessage): Headers {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      for (const item of Array.isArray(value) ? value : [value ?? '']) headers.append(name, item);
    }
    return headers;
  }

  test('the same value or null for any case of the name: repeated, padded, empty, absent, set-cookie', async () => {
    const names = [
      'Mcp-Param-Region',
      'mcp-param-region',
      'MCP-PARAM-ZONE',
      'Mcp-Param-Empty',
      'Set-Cookie',
      'Mcp-Param-Absent',
    ];
    const heads = [
      ['Mcp-Param-Region: Zürich'],
      ['Mcp-Param-Region:   padded \t ', 'Mcp-Param-Zone:\tb'],
      ['Mcp-Param-Region: one', 'mcp-param-region: two ', 'MCP-PARAM-ZONE: =?base64?QQ==?='],
      ['Mcp-Param-Empty:', 'Set-Cookie: a=1', 'Set-Cookie:  b=2 '],
    ].map((lines) => lines.map((line) => `${line}\r\n`).join(''));
    const seen: Array<[string, string | null, string | null]> = [];
    await parsed(heads, (req) => {
      const web = webHeaders(req);
      const ours = headerReader(req);
      for (const name of names) seen.push([name, ours.get(name), web.get(name)]);
    });
    expect(seen).toHaveLength(heads.length * names.length);
    for (const [, ours, web] of seen) expect(ours).toBe(web);
    // Not all null: the heads above carry most of the names.
    expect(seen.filter(([, ours]) => ours !== null).length).toBeGreaterThan(8);
  });
});
