// A client's request as the hop to an upstream gets it (src/upstreams/hop.ts): a 2026-07-28 upstream gets the
// envelope of the client who asks, in the hop's version; a request that already carries exactly that envelope (a
// 2026-07-28 client before a server of its version) goes byte for byte; a 2025 upstream gets no envelope keys.
import { describe, expect, test } from '@jest/globals';
import type { Tool } from '@modelcontextprotocol/client';
import { forHop, paramHeadersOf, type Hop } from '../../src/upstreams/hop.js';
import { envelopeOf } from '../../src/protocol/envelope.js';
import { Frame } from '../../src/wire/frame.js';

const META =
  '{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},' +
  '"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}} , "trace":"t1"}';
const REQUEST = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"m":1.0},"_meta":${META}}}`;

const modern = (overrides: Partial<Hop> = {}): Hop => ({
  era: 'modern',
  protocolVersion: '2026-07-28',
  identity: { clientInfo: { name: 'mcp-offload', version: '0' }, capabilities: {} },
  ...overrides,
});

describe('forHop', () => {
  test('a 2026-07-28 request that carries the envelope this hop would give goes as it came, byte for byte', () => {
    const frame = Frame.read(REQUEST);
    const out = forHop(frame, modern(), envelopeOf(frame.params._meta));
    expect(out).toBe(frame);
    expect(out.encode()).toBe(REQUEST);
  });

  test.each([
    ['another protocol version on the hop', modern({ protocolVersion: '2026-01-01' }), 'protocolVersion', '2026-01-01'],
    ['a log level set on the connection', modern({ logLevel: 'debug' }), 'logLevel', 'debug'],
  ])('with %s, the envelope is set anew; the rest of _meta stays', (_what, hop, key, value) => {
    const frame = Frame.read(REQUEST);
    const out = forHop(frame, hop, envelopeOf(frame.params._meta));
    const meta = out.params._meta as Record<string, unknown>;
    expect(meta[`io.modelcontextprotocol/${key}`]).toBe(value);
    expect(meta['io.modelcontextprotocol/clientInfo']).toEqual({ name: 'c', version: '1' });
    expect(meta.trace).toBe('t1');
    expect(out.encode()).toContain('"arguments":{"m":1.0}');
  });

  test("a 2025 client's request to a 2026-07-28 upstream gets the envelope of its initialize", () => {
    const frame = Frame.read('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}');
    const out = forHop(frame, modern(), { clientInfo: { name: 'old', version: '2' }, clientCapabilities: {} });
    const meta = out.params._meta as Record<string, unknown>;
    expect(meta['io.modelcontextprotocol/clientInfo']).toEqual({ name: 'old', version: '2' });
    expect(meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
  });

  test('a 2025 upstream gets no envelope keys; a request without them goes as it came', () => {
    const legacy = modern({ era: 'legacy', protocolVersion: '2025-11-25' });
    const frame = Frame.read(REQUEST);
    const out = forHop(frame, legacy, envelopeOf(frame.params._meta));
    expect(out.params._meta).toEqual({ trace: 't1' });
    const plain = Frame.read('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    expect(forHop(plain, legacy, undefined)).toBe(plain);
  });

  test('a 2025 upstream: a _meta of envelope keys only is left out; other keys keep their order, __proto__ too', () => {
    const legacy = modern({ era: 'legacy', protocolVersion: '2025-11-25' });
    const only = Frame.read(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":' +
        '{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/logLevel":"info"},"arguments":{}}}',
    );
    expect(forHop(only, legacy, undefined).encode()).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}',
    );
    const mixed = Frame.read(
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"b":1,"io.modelcontextprotocol/clientInfo":{},"__proto__":{"p":1},"a":2}}}',
    );
    const meta = forHop(mixed, legacy, undefined).params._meta as Record<string, unknown>;
    expect(Object.keys(meta)).toEqual(['b', '__proto__', 'a']);
    expect(Object.getPrototypeOf(meta)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(meta, '__proto__')?.value).toEqual({ p: 1 });
    expect(forHop(mixed, legacy, undefined).encode()).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"b":1,"__proto__":{"p":1},"a":2}}}',
    );
  });
});

describe('paramHeadersOf', () => {
  const tool = (name: string, header: string): Tool => ({
    name,
    inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': header } } },
  });
  const callOf = (name: string) =>
    Frame.read(
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":{"region":"eu"}}}`,
    );

  test('the called tool of the listed ones, by name; the first listed of a name; none for a name not listed', () => {
    const tools = [...Array.from({ length: 50 }, (_, i) => tool(`t${i}`, `H${i}`)), tool('t7', 'Later')];
    expect(paramHeadersOf(callOf('t42'), tools)).toEqual({ 'Mcp-Param-H42': 'eu' });
    expect(paramHeadersOf(callOf('t7'), tools)).toEqual({ 'Mcp-Param-H7': 'eu' });
    expect(paramHeadersOf(callOf('nope'), tools)).toBeUndefined();
  });

  test('a list read again (a new array) is looked up anew', () => {
    expect(paramHeadersOf(callOf('t'), [tool('t', 'Before')])).toEqual({ 'Mcp-Param-Before': 'eu' });
    expect(paramHeadersOf(callOf('t'), [tool('t', 'After')])).toEqual({ 'Mcp-Param-After': 'eu' });
  });
});
