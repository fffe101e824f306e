// PostEras (src/http/post-era.ts) against the SDK's own classifier, which it stands in for: over generated bodies
// and headers near a 2026-07-28 request, one PostEras that learns as it goes answers every POST as
// classifyInboundRequest does; and a client's ordinary requests, after its first, are told without the SDK.
import { describe, expect, jest, test } from '@jest/globals';
import fc from 'fast-check';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { PostEras, type EraHeaders } from '../../src/http/post-era.js';
import { Frame } from '../../src/wire/frame.js';

const VERSION = 'io.modelcontextprotocol/protocolVersion';
const INFO = 'io.modelcontextprotocol/clientInfo';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const LEVEL = 'io.modelcontextprotocol/logLevel';

const sdk = (text: string, h: EraHeaders) =>
  classifyInboundRequest({
    httpMethod: 'POST',
    body: JSON.parse(text),
    ...(h.protocolVersion !== undefined ? { protocolVersionHeader: h.protocolVersion } : {}),
    ...(h.mcpMethod !== undefined ? { mcpMethodHeader: h.mcpMethod } : {}),
    ...(h.mcpName !== undefined ? { mcpNameHeader: h.mcpName } : {}),
  });

/** What the classification says, as PostEras reports it. */
const kindOf = (text: string, h: EraHeaders) => {
  const outcome = sdk(text, h);
  return outcome.kind === 'reject' ? `reject ${outcome.httpStatus} ${outcome.code} ${outcome.message}` : outcome.kind;
};
const ours = (eras: PostEras, text: string, h: EraHeaders) => {
  const outcome = eras.of([Frame.read(text)], false, h);
  return outcome.kind === 'reject' ? `reject ${outcome.httpStatus} ${outcome.code} ${outcome.message}` : outcome.kind;
};

const envelope = (extra: Record<string, unknown> = {}) => ({
  [VERSION]: '2026-07-28',
  [INFO]: { name: 'client', version: '1.0.0' },
  [CAPS]: {},
  ...extra,
});

describe('PostEras', () => {
  test("a client's ordinary 2026-07-28 requests are modern, the first by the SDK, the rest at a glance", () => {
    const eras = new PostEras();
    const texts = [1, 2, 3].map((id) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'hi' }, _meta: { ...envelope(), progressToken: id } },
      }),
    );
    const headers = { protocolVersion: '2026-07-28', mcpMethod: 'tools/call', mcpName: 'echo' };
    const asked = jest.spyOn(PostEras.prototype as unknown as { sdk: () => unknown }, 'sdk');
    try {
      for (const text of texts) expect(ours(eras, text, headers)).toBe('modern');
      // The second and third were told without the SDK.
      expect(asked).toHaveBeenCalledTimes(1);
    } finally {
      asked.mockRestore();
    }
    for (const text of texts) expect(kindOf(text, headers)).toBe('modern');
  });

  test('an envelope the SDK refused is not remembered; a mismatched header or an initialize still goes to the SDK', () => {
    const eras = new PostEras();
    const bad = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: envelope({ [LEVEL]: 'loud' }) },
    });
    expect(ours(eras, bad, {})).toMatch(/^reject 400/);
    expect(ours(eras, bad, {})).toMatch(/^reject 400/);
    const good = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: envelope() } });
    expect(ours(eras, good, {})).toBe('modern');
    expect(ours(eras, good, { mcpMethod: 'tools/call' })).toBe(kindOf(good, { mcpMethod: 'tools/call' }));
    expect(ours(eras, good, { protocolVersion: '2026-07-29' })).toBe(kindOf(good, { protocolVersion: '2026-07-29' }));
    expect(kindOf(good, { mcpMethod: 'tools/call' })).toMatch(/^reject 400/);
    // An initialize claiming a 2025 version in a known envelope is the legacy handshake to the SDK.
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', _meta: envelope({ [VERSION]: '2025-11-25' }) },
    });
    expect(ours(eras, initialize, {})).toBe('legacy');
    expect(kindOf(initialize, {})).toBe('legacy');
  });

  test('it remembers a bounded number of envelopes, none of them long', () => {
    const eras = new PostEras();
    const accepted = (eras as unknown as { accepted: Set<string> }).accepted;
    const post = (id: number, name: string) =>
      ours(
        eras,
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'ping',
          params: { _meta: envelope({ [INFO]: { name, version: '1' } }) },
        }),
        {},
      );
    for (let i = 0; i < 600; i++) expect(post(i, `client-${i}`)).toBe('modern');
    expect(accepted.size).toBeGreaterThan(0);
    expect(accepted.size).toBeLessThanOrEqual(256);
    accepted.clear();
    expect(post(1, 'x'.repeat(5000))).toBe('modern');
    expect(accepted.size).toBe(0);
  });

  test('learning as it goes, it answers as the SDK does, whatever the body and headers', () => {
    const scalar = fc.oneof(
      fc.string({ maxLength: 2 }),
      fc.integer({ min: -3, max: 3 }),
      fc.constantFrom(1.5, 2 ** 53, null, true),
    );
    // Few distinct envelopes, valid and not, so that the same text comes back and is told from what was learned.
    const often = <T>(usual: T, others: fc.Arbitrary<T>) =>
      fc.oneof({ weight: 9, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: others });
    const info = fc.constantFrom(
      undefined,
      { name: 'c', version: '1' },
      { name: 'c', version: '1', title: 'C' },
      { name: 'c' },
      { name: 1, version: '1' },
      null,
      'c',
    );
    const caps = fc.constantFrom(
      undefined,
      {},
      { sampling: {} },
      { elicitation: { form: {} } },
      { roots: { listChanged: true } },
      { roots: 1 },
      { tasks: {} },
      null,
      [],
    );
    const level = fc.constantFrom(undefined, 'info', 'debug', 'loud', 1);
    const version = fc.constantFrom('2026-07-28', '2026-07-28', '2025-11-25', '2099-01-01', 7, undefined);
    const token = fc.constantFrom(undefined, 1, 't', 1.5, null);
    const related = fc.constantFrom(undefined, { taskId: 'k' }, { taskId: 1 });
    const meta = fc
      .record({
        v: often<unknown>('2026-07-28', version),
        i: often<unknown>({ name: 'c', version: '1' }, info),
        c: often<unknown>({}, caps),
        l: often<unknown>(undefined, level),
        t: often<unknown>(undefined, token),
        r: often<unknown>(undefined, related),
        x: fc.option(scalar),
      })
      .map(({ v, i, c, l, t, r, x }) => {
        const m: Record<string, unknown> = {};
        if (v !== undefined) m[VERSION] = v;
        if (i !== undefined) m[INFO] = i;
        if (c !== undefined) m[CAPS] = c;
        if (l !== undefined) m[LEVEL] = l;
        if (t !== undefined) m.progressToken = t;
        if (r !== undefined) m['io.modelcontextprotocol/related-task'] = r;
        if (x !== null) m['x.example/key'] = x;
        return m;
      });
    const params = fc.oneof(
      { weight: 8, arbitrary: fc.record({ name: fc.constant('echo'), _meta: meta }, { requiredKeys: ['_meta'] }) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.record({ _meta: scalar }) },
    );
    const method = often('tools/call', fc.constantFrom('tools/list', 'initialize', 'notifications/x'));
    const request = fc.record(
      {
        jsonrpc: often<unknown>('2.0', fc.constantFrom('1.0', undefined)),
        id: often<unknown>(1, fc.constantFrom(2, 'a', 1.5, null, undefined)),
        method,
        params,
        extra: often<unknown>(undefined, scalar),
      },
      { requiredKeys: ['jsonrpc', 'id', 'method', 'params', 'extra'] },
    );
    const header = (values: (string | undefined)[]) => fc.constantFrom(...values);
    const headers = fc.record(
      {
        protocolVersion: often('2026-07-28', header([undefined, ' 2026-07-28\t', '2025-11-25', '2099-01-01'])),
        mcpMethod: often('tools/call', header([undefined, ' tools/call', 'tools/list'])),
        mcpName: header([undefined, 'echo', 'other']),
      },
      { requiredKeys: [] },
    );
    let modern = 0;
    let glanced = 0;
    const asked = jest.spyOn(PostEras.prototype as unknown as { sdk: () => unknown }, 'sdk');
    fc.assert(
      fc.property(fc.array(fc.tuple(request, headers), { minLength: 1, maxLength: 40 }), (posts) => {
        const eras = new PostEras();
        for (const [body, h] of posts) {
          const text = JSON.stringify(body);
          const expected = kindOf(text, h);
          const before = asked.mock.calls.length;
          expect(ours(eras, text, h)).toBe(expected);
          if (expected === 'modern') modern++;
          if (expected === 'modern' && asked.mock.calls.length === before) glanced++;
        }
      }),
      { numRuns: 1500 },
    );
    asked.mockRestore();
    // The generator reaches the case the memory is for, often enough to mean something.
    expect(glanced).toBeGreaterThan(1000);
    expect(modern).toBeGreaterThan(glanced);
  });
});
