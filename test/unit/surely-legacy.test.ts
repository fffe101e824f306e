// The quick check that a POST is a 2025 request (src/http/surely-legacy.ts) against the SDK's own classifier, which it
// stands in for: whenever the check says "legacy", classifyInboundRequest says so too, over generated bodies and
// headers of every shape near a request; and for the ordinary requests of a 2025 session it does say so, or it would
// save nothing.
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { requestParts, trimmed } from '../../src/http/request-shape.js';
import { surelyLegacy as surely } from '../../src/http/surely-legacy.js';
import { parseJson } from '../../src/wire/json.js';

/** The glance as PostEras makes it, from a body and its header as they came. */
const surelyLegacy = (body: unknown, header: string | undefined) => surely(requestParts(body), trimmed(header));

const sdk = (body: unknown, header?: string) =>
  classifyInboundRequest({
    httpMethod: 'POST',
    body,
    ...(header !== undefined ? { protocolVersionHeader: header } : {}),
  }).kind;

describe('surelyLegacy', () => {
  test('the ordinary requests of a 2025 session are legacy at a glance, as the SDK says', () => {
    const bodies = [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } },
      { jsonrpc: '2.0', id: 'a-1', method: 'tools/list' },
      { jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri: 'x://y', _meta: { progressToken: 't' } } },
      {
        jsonrpc: '2.0',
        id: 8,
        method: 'x',
        params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'k' } } },
      },
    ];
    for (const body of bodies) {
      for (const header of [undefined, '2025-11-25', ' 2025-06-18\t']) {
        expect(surelyLegacy(body, header)).toBe(true);
        expect(sdk(body, header)).toBe('legacy');
      }
    }
  });

  test.each([
    ['initialize', { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }, undefined],
    ['a modern header', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, '2026-07-28'],
    [
      'an envelope claim',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': 'x' } },
      },
      undefined,
    ],
    ['an unsafe integer id', { jsonrpc: '2.0', id: 1e20, method: 'tools/list' }, undefined],
    ['an extra member', { jsonrpc: '2.0', id: 1, method: 'tools/list', extra: 1 }, undefined],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }, undefined],
    ['a number kept as its text', parseJson('{"jsonrpc":"2.0","id":12345678901234567890123,"method":"m"}'), undefined],
  ])('leaves %s to the SDK', (_what, body, header) => {
    expect(surelyLegacy(body, header)).toBe(false);
  });

  test('whenever it says legacy, the SDK says legacy, whatever the body and header', () => {
    const scalar = fc.oneof(
      fc.string({ maxLength: 3 }),
      fc.integer(),
      fc.constantFrom(1.5, 1e20, 2 ** 53, -0, null, true, Number.MAX_SAFE_INTEGER),
    );
    const meta = fc.dictionary(
      fc.constantFrom(
        'progressToken',
        'io.modelcontextprotocol/related-task',
        'io.modelcontextprotocol/protocolVersion',
        'x',
      ),
      fc.oneof(scalar, fc.record({ taskId: scalar }), fc.constant({})),
      { maxKeys: 3 },
    );
    const params = fc.oneof(
      fc.constant(undefined),
      scalar,
      fc.array(scalar, { maxLength: 2 }),
      fc.record({ _meta: fc.oneof(meta, scalar) }, { requiredKeys: [] }),
      fc.dictionary(fc.constantFrom('name', 'arguments', '_meta'), fc.oneof(scalar, meta), { maxKeys: 3 }),
    );
    // Near a request: the three members mostly right, now and then a wrong one, a missing one or one too many.
    const request = fc.record(
      {
        jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '1.0'),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), scalar),
        method: fc.oneof(fc.constantFrom('tools/call', 'tools/call', 'ping', 'initialize'), scalar),
        params,
      },
      { requiredKeys: [] },
    );
    const extra = fc.option(fc.record({ result: fc.constant({}), extra: scalar }, { requiredKeys: [] }), { freq: 4 });
    const body = fc.oneof(
      { weight: 8, arbitrary: fc.tuple(request, extra).map(([r, e]) => ({ ...r, ...(e ?? {}) })) },
      { weight: 1, arbitrary: scalar },
      { weight: 1, arbitrary: fc.array(fc.constant({ jsonrpc: '2.0', id: 1, method: 'ping' }), { maxLength: 2 }) },
    );
    const header = fc.oneof(
      fc.constant(undefined),
      fc.constantFrom('2025-11-25', '2026-07-28', ' 2026-07-28', '2099-01-01', 'garbage', ''),
    );
    let sure = 0;
    fc.assert(
      fc.property(body, header, (b, h) => {
        if (!surelyLegacy(b, h)) return;
        sure++;
        expect(sdk(JSON.parse(JSON.stringify(b ?? null)) ?? b, h)).toBe('legacy');
      }),
      { numRuns: 20000 },
    );
    // The generator reaches the case the check is for, often enough to mean something.
    expect(sure).toBeGreaterThan(200);
  });
});
