// The proxy's own check of a 2026-07-28 client's Mcp-Param-* headers (SEP-2243) at its HTTP endpoint: the headers as
// Node's HTTP parser hands them over (any case, repeated ones joined, padding dropped) must be read as the web Headers
// reads them, so the endpoint accepts and refuses exactly what paramHeaderRejection decides on a web Headers built
// from the same header lines. The tool is the SDK v2 fixture's region_echo (`region` declared `x-mcp-header: Region`).
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Tool } from '@modelcontextprotocol/server';
import { paramHeaderRejection } from '../../src/http/param-header-check.js';
import { FIXTURES, NODE } from '../helpers/fixtures.js';
import { startHttpGateway, type HttpGateway } from '../helpers/http-gateway.js';

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let served: HttpGateway;
let tool: Tool;

beforeAll(async () => {
  served = await startHttpGateway([{ name: 'modern', command: NODE, args: [FIXTURES.modern], protocol: 'modern' }]);
  tool = served.gateway.upstreams[0]!.catalog.tools.find((t) => t.name === 'region_echo')!;
  expect(tool).toBeDefined();
});

afterAll(async () => {
  await served?.close();
});

/** A POST with these extra header lines (a name given twice is sent as two lines); its status and body. */
function post(body: unknown, lines: Array<[string, string]>): Promise<{ status: number; text: string }> {
  const headers: Record<string, string | string[]> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/call',
    'mcp-name': 'region_echo',
  };
  for (const [name, value] of lines) {
    // Names that differ only in case are one header to Node's client: a repeated one goes as an array, line by line.
    const same = Object.keys(headers).find((key) => key.toLowerCase() === name.toLowerCase());
    const before = same === undefined ? undefined : headers[same];
    headers[same ?? name] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  return new Promise((resolve, reject) => {
    const req = request(served.endpoint, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The same header lines in a web Headers, as the SDK's entry reads them. */
function webHeaders(lines: Array<[string, string]>): Headers {
  const headers = new Headers();
  for (const [name, value] of lines) headers.append(name, value);
  return headers;
}

describe('Mcp-Param-* headers of a 2026-07-28 tools/call, read as the web Headers reads them', () => {
  const region = 'eu west';
  const CASES: Array<[string, Array<[string, string]>]> = [
    ['the exact name', [['Mcp-Param-Region', region]]],
    ['the name in lower case', [['mcp-param-region', region]]],
    ['the name in upper case, the value padded', [['MCP-PARAM-REGION', `  ${region} \t`]]],
    ['the value in Base64', [['Mcp-Param-Region', `=?base64?${Buffer.from(region).toString('base64')}?=`]]],
    [
      'the header twice (joined: "a, a")',
      [
        ['Mcp-Param-Region', region],
        ['mcp-param-region', region],
      ],
    ],
    ['another value', [['Mcp-Param-Region', 'us']]],
    ['no header', []],
    ['an empty header', [['Mcp-Param-Region', '']]],
    ['a malformed Base64 value', [['Mcp-Param-Region', '=?base64?@@?=']]],
  ];

  test.each(CASES)('%s: accepted or refused as paramHeaderRejection decides on a web Headers', async (_, lines) => {
    const body = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'region_echo', arguments: { region }, _meta: ENVELOPE },
    };
    const verdict = paramHeaderRejection(body, webHeaders(lines), (name) => (name === tool.name ? tool : undefined));
    const answer = await post(body, lines);
    if (verdict === undefined) {
      expect(answer.status).toBe(200);
      expect(answer.text).toContain(`region: ${region}`);
    } else {
      expect(answer.status).toBe(400);
      const error = (JSON.parse(answer.text) as { id: unknown; error: { code: number; data: unknown } }).error;
      expect(error.code).toBe(-32020);
      expect(error.data).toEqual(verdict.body.error.data);
    }
  });

  test('the cases above hold both verdicts', () => {
    const verdicts = CASES.map(([, lines]) =>
      paramHeaderRejection(
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'region_echo', arguments: { region } } },
        webHeaders(lines),
        () => tool,
      ),
    );
    expect(verdicts.filter((v) => v === undefined)).toHaveLength(4);
    expect(verdicts.filter((v) => v !== undefined)).toHaveLength(5);
  });
});
