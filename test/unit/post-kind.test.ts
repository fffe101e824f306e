// Which era the SDK's 2026-07-28 entry gives a POST (http/post-kind.ts isLegacy), told without its zod guards for the
// two hot cases: a plain 2025 tools/call, and any message whose _meta claims a protocol version. Held to the SDK's own
// classification (classifyInboundRequest) on bodies and headers at the edges of both shortcuts.
import { describe, expect, test } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { isLegacy } from '../../src/http/post-kind.js';

const MODERN = '2026-07-28';
const claim = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});
const call = (meta?: unknown, rest: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', ...(meta === undefined ? {} : { _meta: meta }) },
  ...rest,
});

const BODIES: Array<[string, unknown]> = [
  ['a plain 2025 call', call()],
  ['a 2026 call', call(claim())],
  [
    'a 2026 call with a legacy version claimed',
    call(claim({ 'io.modelcontextprotocol/protocolVersion': '2025-11-25' })),
  ],
  ['a claim with no client capabilities', call({ 'io.modelcontextprotocol/protocolVersion': MODERN })],
  ['a claim that is not a string', call({ 'io.modelcontextprotocol/protocolVersion': 7 })],
  ['a 2026 call with a fractional id', call(claim(), { id: 1.5 })],
  ['a 2026 call with a null id', call(claim(), { id: null })],
  ['a 2026 call without jsonrpc', call(claim(), { jsonrpc: undefined })],
  ['a 2026 notification', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: claim() } }],
  ['a response that names a method', call(claim(), { result: {} })],
  ['an error response with params', { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' }, params: {} }],
  ['initialize with a claim', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: claim() } }],
  [
    'initialize with an incomplete claim',
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } },
    },
  ],
  ['initialize without one', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: MODERN } }],
  ['a _meta that is an array', call([])],
  ['params that are an array', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: [] }],
  ['a batch', [call(claim())]],
  ['a string', 'tools/call'],
];

const HEADERS: Array<[string, Record<string, string>]> = [
  ['no headers', {}],
  ['2026 headers', { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' }],
  ['a 2025 version header', { 'mcp-protocol-version': '2025-11-25' }],
  ['a mismatched method header', { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' }],
];

describe('isLegacy', () => {
  for (const [headersLabel, headers] of HEADERS) {
    test.each(BODIES)(`%s, ${headersLabel}: as the SDK classifies it`, (_, body) => {
      const req = { headers } as unknown as IncomingMessage;
      const sdk = classifyInboundRequest({
        httpMethod: 'POST',
        protocolVersionHeader: headers['mcp-protocol-version'],
        mcpMethodHeader: headers['mcp-method'],
        mcpNameHeader: headers['mcp-name'],
        body,
      });
      expect(isLegacy(req, body)).toBe(sdk.kind === 'legacy');
    });
  }
});
