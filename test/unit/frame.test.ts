// A JSON-RPC message with the text it came as (src/wire/frame.ts, spans.ts): the relay reads the parsed view and
// changes a few members with `with()`; written out, the frame is its own text with only those members spliced in,
// so every other byte reaches the other side as it came (spacing, key order, `1.0`, `\u00e9`).
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { Frame, type Message, type Path } from '../../src/wire/frame.js';
import { LineReader } from '../../src/wire/lines.js';
import { isExactNumber, parseJson } from '../../src/wire/json.js';
import { memberValue, objectAt, skipSpace, stringEnd, valueEndAt } from '../../src/wire/spans.js';

/** A value with its object keys sorted (exact numbers kept as they are), for comparing two views of one message. */
function canonical(value: unknown): unknown {
  if (isExactNumber(value) || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(canonical);
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    Object.defineProperty(sorted, key, {
      value: canonical((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return sorted;
}

/** The same JSON value, numbers compared by the text they are written as (exact numbers included). */
const sameJson = (a: unknown, b: unknown) => expect(JSON.stringify(canonical(a))).toBe(JSON.stringify(canonical(b)));

/** What a frame writes, read back. */
const written = (frame: Frame) => parseJson(frame.encode());

describe('reading', () => {
  test.each([
    ['{"jsonrpc":"2.0","id":1,"method":"ping"}', 'request'],
    ['{"jsonrpc":"2.0","id":null,"method":"ping"}', 'request'],
    ['{"jsonrpc":"2.0","method":"notifications/initialized"}', 'notification'],
    ['{"jsonrpc":"2.0","id":1,"result":{}}', 'response'],
    ['{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}', 'response'],
    ['{"jsonrpc":"2.0","id":1}', 'invalid'],
    ['{"jsonrpc":"2.0","id":1,"method":5}', 'invalid'],
    ['[{"jsonrpc":"2.0","id":1,"method":"ping"}]', 'invalid'],
    ['"ping"', 'invalid'],
    ['null', 'invalid'],
  ])('%s is a %s', (text, kind) => {
    expect(Frame.read(text).kind).toBe(kind);
  });

  test('the parsed view, its parts, and the text as it came', () => {
    const text = ' { "jsonrpc" : "2.0" , "id" : "a-1" , "method" : "tools/call" , "params" : { "n" : 1.0 } } ';
    const frame = Frame.read(text);
    expect(frame.message).toEqual({ jsonrpc: '2.0', id: 'a-1', method: 'tools/call', params: { n: 1 } });
    expect(frame.id).toBe('a-1');
    expect(frame.method).toBe('tools/call');
    expect(frame.params).toEqual({ n: 1 });
    expect(frame.isError).toBe(false);
    expect(frame.verbatim).toBe(true);
    expect(frame.encode()).toBe(text);
    expect(frame.chunks()).toEqual([text]);
    // Without params, or with params that are no object, the relay reads empty params.
    expect(Frame.read('{"jsonrpc":"2.0","method":"x"}').params).toEqual({});
    expect(Frame.read('{"jsonrpc":"2.0","method":"x","params":null}').params).toEqual({});
    expect(Frame.read('{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}').isError).toBe(true);
  });

  test('an id a double cannot hold is kept as written', () => {
    const frame = Frame.read('{"jsonrpc":"2.0","id":12345678901234567890123,"result":{}}');
    expect(isExactNumber(frame.id)).toBe(true);
    expect(frame.with(['result'], { ok: true }).encode()).toBe(
      '{"jsonrpc":"2.0","id":12345678901234567890123,"result":{"ok":true}}',
    );
  });

  test('a text that is not JSON is refused', () => {
    expect(() => Frame.read('{"jsonrpc":"2.0",')).toThrow(SyntaxError);
    expect(() => Frame.read('Starting server...')).toThrow(SyntaxError);
  });

  test('frames the proxy makes are serialized once, as JSON.stringify writes them', () => {
    expect(Frame.request(3, 'tools/list').encode()).toBe('{"jsonrpc":"2.0","id":3,"method":"tools/list"}');
    expect(Frame.request('x', 'tools/call', { name: 'a' }).encode()).toBe(
      '{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a"}}',
    );
    expect(Frame.notification('notifications/cancelled', { requestId: 3 }).kind).toBe('notification');
    expect(Frame.result(3, { content: [] }).encode()).toBe('{"jsonrpc":"2.0","id":3,"result":{"content":[]}}');
    const error = Frame.error(null, { code: -32600, message: 'Invalid Request' });
    expect(error.encode()).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}');
    expect(error.isError).toBe(true);
    expect(Frame.of({ jsonrpc: '2.0', id: 1, method: 'm' }).verbatim).toBe(false);
  });
});

describe('with(): a member changed, every other byte as it came', () => {
  const TEXT = '{ "jsonrpc":"2.0",  "id" : 7 ,"method":"tools/call", "params":{"n":1.0, "s":"\\u00e9"} }';

  test('replacing a top-level member changes its value only', () => {
    const frame = Frame.read(TEXT).with(['id'], 'p-1');
    expect(frame.encode()).toBe(TEXT.replace('"id" : 7', '"id" : "p-1"'));
    expect(frame.id).toBe('p-1');
    expect(frame.verbatim).toBe(true);
    // The frame it came from is unchanged.
    expect(Frame.read(TEXT).with(['id'], 8).with(['id'], 9).encode()).toBe(TEXT.replace('"id" : 7', '"id" : 9'));
  });

  test('a new member goes after the last one; into an empty object, inside its braces', () => {
    expect(Frame.read(TEXT).with(['extra'], [1]).encode()).toBe(
      TEXT.replace('"s":"\\u00e9"} }', '"s":"\\u00e9"},"extra":[1] }'),
    );
    expect(Frame.read('{}').with(['a'], 1).encode()).toBe('{"a":1}');
    expect(Frame.read('{ \n }').with(['a'], 1).with(['b'], 'x').encode()).toBe('{"a":1,"b":"x" \n }');
  });

  test('removing the first, a middle, the last or the only member leaves no comma over nor missing', () => {
    const text = '{"a" : 1.0 ,"b":"\\u00e9",  "c":[1, 2] }';
    expect(Frame.read(text).with(['a'], undefined).encode()).toBe('{"b":"\\u00e9","c":[1, 2]}');
    expect(Frame.read(text).with(['b'], undefined).encode()).toBe('{"a" : 1.0,"c":[1, 2]}');
    expect(Frame.read(text).with(['c'], undefined).encode()).toBe('{"a" : 1.0,"b":"\\u00e9"}');
    expect(Frame.read('{ "only" : 1 }').with(['only'], undefined).encode()).toBe('{}');
    expect(Frame.read(text).with(['a'], undefined).with(['b'], undefined).with(['c'], undefined).encode()).toBe('{}');
    // Removing a member that is not there changes nothing.
    expect(Frame.read(text).with(['d'], undefined).encode()).toBe(text);
  });

  test('a removal, a replacement and an insertion in the same object', () => {
    const frame = Frame.read('{"a":1, "b":2 , "c":3}').with(['b'], undefined).with(['c'], 'three').with(['d'], 4);
    expect(frame.encode()).toBe('{"a":1,"c":"three","d":4}');
    expect(frame.message).toEqual({ a: 1, c: 'three', d: 4 });
  });

  test('one level down: replace, insert, remove, next to members that keep their bytes', () => {
    const frame = Frame.read(TEXT);
    expect(frame.with(['params', 'n'], 2).encode()).toBe(TEXT.replace('"n":1.0', '"n":2'));
    expect(frame.with(['params', '_meta'], { progressToken: 't' }).encode()).toBe(
      TEXT.replace('"s":"\\u00e9"}', '"s":"\\u00e9","_meta":{"progressToken":"t"}}'),
    );
    expect(frame.with(['params', 'n'], undefined).encode()).toBe(TEXT.replace('"n":1.0, ', ''));
    const both = frame.with(['params', 's'], 'e').with(['id'], 8);
    expect(both.encode()).toBe(TEXT.replace('"s":"\\u00e9"', '"s":"e"').replace('"id" : 7', '"id" : 8'));
    expect(both.message.params).toEqual({ n: 1, s: 'e' });
  });

  test('one level down under a parent that is not there, or was removed, or was set whole', () => {
    const base = Frame.read('{"jsonrpc":"2.0","method":"x"}');
    const created = base.with(['params', '_meta'], { a: 1 });
    expect(created.encode()).toBe('{"jsonrpc":"2.0","method":"x","params":{"_meta":{"a":1}}}');
    expect(created.message.params).toEqual({ _meta: { a: 1 } });
    // Set and removed again under an absent parent: the parent comes empty.
    expect(base.with(['params', 'a'], 1).with(['params', 'a'], undefined).encode()).toBe(
      '{"jsonrpc":"2.0","method":"x","params":{}}',
    );
    const text = '{"jsonrpc":"2.0","method":"x","params":{"a":1, "b":2}}';
    const removedFirst = Frame.read(text).with(['params'], undefined).with(['params', 'c'], 3);
    expect(removedFirst.message.params).toEqual({ c: 3 });
    sameJson(written(removedFirst), removedFirst.message);
    const removedAfter = Frame.read(text).with(['params', 'c'], 3).with(['params'], undefined);
    expect(removedAfter.encode()).toBe('{"jsonrpc":"2.0","method":"x"}');
    const setWhole = Frame.read(text).with(['params'], { z: 0 }).with(['params', 'y'], 1);
    expect(setWhole.message.params).toEqual({ z: 0, y: 1 });
    sameJson(written(setWhole), setWhole.message);
  });

  test('a key given twice is read as its last occurrence, and that one is edited', () => {
    const text = '{"a":1,"b":{"x":1},"a":2,"b":{"x":2}}';
    expect(Frame.read(text).message).toEqual({ a: 2, b: { x: 2 } });
    const replaced = Frame.read(text).with(['a'], 3);
    expect(replaced.encode()).toBe('{"a":1,"b":{"x":1},"a":3,"b":{"x":2}}');
    sameJson(written(replaced), { a: 3, b: { x: 2 } });
    const nested = Frame.read(text).with(['b', 'y'], 0);
    expect(nested.encode()).toBe('{"a":1,"b":{"x":1},"a":2,"b":{"x":2,"y":0}}');
    sameJson(written(nested), nested.message);
    const removed = Frame.read(text).with(['a'], undefined);
    // Rebuilt after a removal, the member list has each key once: as it was read, its last occurrence.
    expect(removed.encode()).toBe('{"b":{"x":2}}');
    sameJson(written(removed), { b: { x: 2 } });
    // A key written with escapes is the same key.
    const escaped = Frame.read('{"\\u0061":1,"b":2}').with(['a'], 5);
    expect(escaped.encode()).toBe('{"\\u0061":5,"b":2}');
  });

  test('edited values are written as JSON.stringify writes them, exact numbers as they came', () => {
    const frame = Frame.read('{"id":1}').with(['n'], parseJson('12345678901234567890123')).with(['s'], 'é"\n');
    expect(frame.encode()).toBe('{"id":1,"n":12345678901234567890123,"s":"é\\"\\n"}');
  });

  test('the text is kept when it is not an object: the message is written whole', () => {
    const frame = Frame.read(' [1, 2.0] ').with(['x'], 1);
    expect(frame.encode()).toBe('{"0":1,"1":2,"x":1}');
  });

  test('withMembers(): several members of one object in one edit, as the same with() calls one after the other make them', () => {
    const text = '{"jsonrpc":"2.0", "id":3, "result":{"content":[], "ttlMs":-1.0, "old":true}}';
    const members: Array<[string, unknown]> = [
      ['resultType', 'complete'],
      ['ttlMs', 60000],
      ['old', undefined],
      ['__proto__', { a: 1 }],
    ];
    const cases = [Frame.read(text), Frame.read(text).with(['result', 'x'], 1), Frame.read(text).with(['result'], {})];
    // A frame the proxy built has no text to splice into: serialized whole, as with().
    cases.push(Frame.of(JSON.parse(text) as Message));
    for (const frame of cases) {
      const one = frame.withMembers('result', members);
      const many = members.reduce((f, [key, value]) => f.with(['result', key], value), frame);
      expect(one.encode()).toBe(many.encode());
      expect(one.message).toEqual(many.message);
      // `__proto__` is a member of the copy, not its prototype.
      expect(Object.getPrototypeOf(one.message.result)).toBe(Object.prototype);
    }
    expect(Frame.read(text).withMembers('result', members).encode()).toBe(
      '{"jsonrpc":"2.0", "id":3, "result":{"content":[],"ttlMs":60000,"resultType":"complete","__proto__":{"a":1}}}',
    );
    // No member: the same frame.
    const frame = Frame.read(text);
    expect(frame.withMembers('result', [])).toBe(frame);
  });

  test('one level down under a member that is no object: the object replaces it, the other members keep their bytes', () => {
    // The view reads such a parent as an empty object; only that member's text changes.
    for (const params of ['null', '[1]', '"s"', '5', '12345678901234567890123']) {
      const text = `{"jsonrpc":"2.0", "id":1.0, "method":"x", "params":${params}}`;
      const frame = Frame.read(text).with(['params', '_meta'], { progressToken: 't' });
      expect(frame.message.params).toEqual({ _meta: { progressToken: 't' } });
      sameJson(written(frame), frame.message);
      expect(frame.encode()).toBe(
        '{"jsonrpc":"2.0", "id":1.0, "method":"x", "params":{"_meta":{"progressToken":"t"}}}',
      );
    }
  });
});

describe('plainText: the text a search of every string can use', () => {
  const text =
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":"artifact://s/t"}}}';

  test('a frame read from a text without escapes is its text', () => {
    expect(Frame.read(text).plainText).toBe(text);
    expect(Frame.read(` ${text}\n`).plainText).toBe(` ${text}\n`);
  });

  test('a backslash anywhere (an escape may hide what a string holds) gives none', () => {
    expect(Frame.read(text.replace('artifact://', String.raw`artifact:\/\/`)).plainText).toBeUndefined();
    expect(Frame.read(text.replace('"a"', String.raw`"\u0061"`)).plainText).toBeUndefined();
  });

  test('an edited frame, a frame the proxy built and a frame with blobs give none', () => {
    expect(Frame.read(text).with(['id'], 2).plainText).toBeUndefined();
    expect(Frame.read(text).with(['params', 'name'], 'b').plainText).toBeUndefined();
    expect(Frame.of(parseJson(text) as never).plainText).toBeUndefined();
    // A long literal read as a blob: the text holds a marker in its place, not what the string holds.
    const frames: Frame[] = [];
    const reader = new LineReader(
      { frame: (f) => frames.push(f), noise: () => {}, oversize: () => {} },
      undefined,
      true,
      64,
    );
    const line = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"data":"${'QUJD'.repeat(64)}"}}\n`);
    // In two chunks, the literal crossing between them (as a stream gives a long one).
    reader.push(line.subarray(0, 100));
    reader.push(line.subarray(100));
    expect(frames[0]!.blobs.size).toBe(1);
    expect(frames[0]!.plainText).toBeUndefined();
  });
});

describe('replace() and chunks()', () => {
  test('replace() is another message in the same place: serialized whole, with the same blobs', () => {
    const frame = Frame.read('{"jsonrpc":"2.0", "id":1, "result":{"n":1.0}}');
    const replaced = frame.replace({ jsonrpc: '2.0', id: 1, result: { n: 2 } });
    expect(replaced.verbatim).toBe(false);
    expect(replaced.encode()).toBe('{"jsonrpc":"2.0","id":1,"result":{"n":2}}');
    expect(replaced.blobs).toBe(frame.blobs);
    // Edits of a replaced frame go into its view, written whole.
    expect(replaced.with(['id'], 2).encode()).toBe('{"jsonrpc":"2.0","id":2,"result":{"n":2}}');
  });

  test('chunks(true) turns line breaks between tokens into spaces; chunks() keeps them', () => {
    const text = '{\r\n  "jsonrpc": "2.0",\n  "id": 1,\n  "result": {\n    "s": "a\\nb"\n  }\n}';
    const frame = Frame.read(text);
    expect(frame.chunks()).toEqual([text]);
    const line = frame.chunks(true).join('');
    expect(line).toBe(text.replace(/[\r\n]/g, ' '));
    expect(line).not.toMatch(/[\r\n]/);
    expect(JSON.parse(line)).toEqual(JSON.parse(text));
    const edited = frame.with(['id'], 2).chunks(true).join('');
    expect(edited).not.toMatch(/[\r\n]/);
    expect(JSON.parse(edited)).toEqual({ ...(JSON.parse(text) as object), id: 2 });
    // A carriage return alone between tokens becomes a space as well.
    const returns = '{"jsonrpc":"2.0",\r"id":1,\r"result":{}}';
    expect(Frame.read(returns).with(['id'], 3).chunks(true).join('')).toBe('{"jsonrpc":"2.0", "id":3, "result":{}}');
  });
});

describe('spans', () => {
  test('members of an object: key, where it starts, where its value starts and ends', () => {
    const text = ' { "a" : 1.0 , "b\\"c":"x\\"}" , "d":{"e":[1,{"f":"]"}]} } ';
    const open = skipSpace(text, 0);
    const span = objectAt(text, open)!;
    expect(span.open).toBe(1);
    expect(text[span.close]).toBe('}');
    expect(span.close).toBe(text.length - 2);
    expect(
      span.members.map((m) => [m.key, text.slice(m.start, m.valueEnd), text.slice(m.valueStart, m.valueEnd)]),
    ).toEqual([
      ['a', '"a" : 1.0', '1.0'],
      ['b"c', '"b\\"c":"x\\"}"', '"x\\"}"'],
      ['d', '"d":{"e":[1,{"f":"]"}]}', '{"e":[1,{"f":"]"}]}'],
    ]);
    expect(objectAt(text, 0)).toBeUndefined();
    expect(objectAt('{}', 0)).toEqual({ open: 0, close: 1, members: [] });
  });

  test('members named in `within` are read in the same pass: their own members, as objectAt reads them there', () => {
    const text = '{"a":{"x":1,"y":{"z":"}"}},"b":[{"c":2}],"c":"{","d":{}}';
    const span = objectAt(text, 0, new Set(['a', 'b', 'c', 'd']))!;
    expect(span).toEqual({ ...objectAt(text, 0)!, members: expect.any(Array) as unknown });
    for (const member of span.members) {
      const plain = objectAt(text, 0)!.members.find((m) => m.key === member.key)!;
      expect({ ...member, inner: undefined }).toEqual({ ...plain, inner: undefined });
      // An object's members are read; an array or a string has none.
      expect(member.inner).toEqual(objectAt(text, member.valueStart));
    }
    expect(span.members.map((m) => m.inner !== undefined)).toEqual([true, false, false, true]);
    expect(objectAt(text, 0)!.members.every((m) => m.inner === undefined)).toBe(true);
  });

  test('a `_meta` object is compared with the ones read before it: each ends where its own text does', () => {
    // A 2026-07-28 envelope, sent again and again; then texts that share its start but not all of it.
    const envelope = JSON.stringify({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'client', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, roots: {} },
    });
    const shorter = envelope.replace('"roots":{}', '"x":1');
    const longer = envelope.replace('"roots":{}', '"roots":{"listChanged":true}');
    const sent = [envelope, envelope, longer, shorter, envelope, '{"progressToken":1}', longer, shorter];
    for (const [n, meta] of sent.entries()) {
      const text = `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"t","_meta":${meta},"z":0}}`;
      const params = objectAt(text, 0)!.members.find((m) => m.key === 'params')!;
      const member = objectAt(text, params.valueStart)!.members.find((m) => m.key === '_meta')!;
      expect(text.slice(member.valueStart, member.valueEnd)).toBe(meta);
      const stripped = Frame.read(text).with(['params', '_meta'], undefined).chunks().join('');
      expect(stripped).toBe(`{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"t","z":0}}`);
    }
  });

  test('strings end at the first quote after an even run of backslashes; values at their last byte', () => {
    expect(stringEnd('"a\\\\"b', 0)).toBe(4);
    expect(stringEnd('"a\\"b"', 0)).toBe(5);
    expect(stringEnd('"open', 0)).toBe(-1);
    expect(valueEndAt('12.5e3,', 0)).toBe(6);
    expect(valueEndAt('true}', 0)).toBe(4);
    expect(valueEndAt('[1,[2]] ', 0)).toBe(7);
    expect(valueEndAt(',', 0)).toBe(-1);
  });
});

describe('the quick lookup of a message id (memberValue)', () => {
  const valueOf = (text: string, key = 'id') => {
    const found = memberValue(text, key);
    return found && text.slice(found.start, found.end);
  };

  test('finds the id among the first members or as the last member, where writers put it', () => {
    expect(valueOf('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"a":[1]}}')).toBe('12');
    expect(valueOf('{"id":"abc","method":"x"}')).toBe('"abc"');
    expect(valueOf('{"result":{"content":[{"type":"text","text":"id"}]},"jsonrpc":"2.0","id":7}')).toBe('7');
    expect(valueOf('{"result":{},"jsonrpc":"2.0", "id" : "x-1" }  ')).toBe('"x-1"');
    expect(valueOf('{"result":{},"id":-1.5e3}')).toBe('-1.5e3');
    // Given twice, the last one is the one JSON.parse reads.
    expect(valueOf('{"id":1,"params":{},"id":2}')).toBe('2');
    // Keys and strings that end in the key's letters are no second spelling of it.
    expect(valueOf('{"jsonrpc":"2.0","id":5,"valid":true,"params":{"grid":"paid"}}')).toBe('5');
  });

  test.each([
    // The key is given again (JSON.parse reads the last): the whole object must be read.
    ['{"id":1,"params":{},"id":2,"m":3}', 'a later "id"'],
    ['{"id":1,"x":"\\u0069d","\\u0069d":2}', 'a later key with a \\u escape'],
    // Not the top-level member, or not a plain last value.
    ['{"result":{"id":7}}', 'an id inside the result'],
    ['{"result":{},"x":"a\\"id\\":5"}', 'an id inside a string'],
    ['{"result":{},"id":"a\\"b"}', 'a last string value with an escape'],
    ['{"result":{},"id":null}', 'a last value that is no number or string'],
    ['{"params":{"a":1},"id":1,"method":"m"}', 'an id after a nested value, not last'],
    ['{"a":1,"b":2,"c":3,"d":4,"id":5,"e":6}', 'an id past the first few members'],
    ['{"x\\"id":5}', 'a key that ends in id'],
  ])('leaves %s to the whole-object reading (%s)', (text) => {
    expect(memberValue(text, 'id')).toBeUndefined();
  });

  test('keys with characters other spellings could hide are never looked up quickly', () => {
    expect(memberValue('{"a/b":1}', 'a/b')).toBeUndefined();
    expect(memberValue('{"é":1}', 'é')).toBeUndefined();
  });

  test('a frame whose id is set anew writes the id where it was, every other byte as it came', () => {
    const text = '{"result":{"content":[{"type":"text","text":"a \\"id\\": 1"}]},"jsonrpc":"2.0","id":3}';
    expect(Frame.read(text).with(['id'], 'c-9').encode()).toBe(text.replace('"id":3}', '"id":"c-9"}'));
    const request = '{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"arguments":{"id":2}}}';
    const edited = Frame.read(request).with(['id'], 41);
    expect(edited.encode()).toBe(request.replace('"id":"x"', '"id":41'));
    expect(edited.message.id).toBe(41);
  });

  test('whatever the message, the quick lookup gives the member JSON.parse reads, or nothing', () => {
    const scalar = fc.oneof(
      fc.integer().map(String),
      fc.constantFrom('"a"', '"i\\"d"', '"\\u0069d"', 'true', 'null', '1.5e3', '"id"'),
    );
    const value = fc.oneof(
      scalar,
      scalar.map((v) => `{"id":${v}}`),
      scalar.map((v) => `[${v}]`),
    );
    const keyText = fc.constantFrom('"id"', '"id"', '"\\u0069d"', '"a"', '"i"', '"xid"');
    const members = fc.array(fc.tuple(keyText, fc.constantFrom('', ' '), value), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(members, (list) => {
        const text = `{${list.map(([k, space, v]) => `${k}:${space}${v}`).join(',')}}`;
        const found = memberValue(text, 'id');
        if (!found) return;
        const parsed = JSON.parse(text) as { id?: unknown };
        expect(JSON.parse(text.slice(found.start, found.end))).toEqual(parsed.id);
        // The member found is the last "id" member: setting it sets what JSON.parse reads.
        const changed = `${text.slice(0, found.start)}"NEW"${text.slice(found.end)}`;
        expect((JSON.parse(changed) as { id?: unknown }).id).toBe('NEW');
      }),
      { numRuns: 5000 },
    );
  });
});

describe('properties', () => {
  /** Characters that test the scanner: quotes, backslashes, brackets and commas inside strings, non-ASCII. */
  const CHARS = ['a', 'Z', ' ', '"', '\\', '/', '{', '}', '[', ']', ',', ':', 'é', '🌍', '\n', '\u0001', '\u2028'];
  const SPACE = fc.constantFrom('', '', '', ' ', '  ', '\n', '\t', '\r\n');

  /** A string literal as a writer may write it: each character plain or escaped (and escaped where it must be). */
  const stringLiteral = (chars: fc.Arbitrary<string>) =>
    fc.array(fc.tuple(chars, fc.boolean()), { maxLength: 8 }).map((pairs) => {
      let body = '';
      for (const [char, escape] of pairs) {
        if (char === '"' || char === '\\') body += `\\${char}`;
        else if (char.charCodeAt(0) < 0x20 || escape)
          body += [...char]
            .map((c) =>
              c.length === 1
                ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
                : [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16)}`).join(''),
            )
            .join('');
        else body += char;
      }
      return `"${body}"`;
    });

  const KEYS = ['a', 'b', 'id', 'params', '_meta', 'é', 'q"', 'x y'];
  /** A key as written: the same key may be written with and without escapes. */
  const keyLiteral = fc.constantFrom(...KEYS).chain((key) =>
    fc.array(fc.boolean(), { minLength: key.length, maxLength: key.length }).map((escapes) => {
      let body = '';
      [...key].forEach((char, i) => {
        if (char === '"') body += '\\"';
        else if (escapes[i]) body += `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
        else body += char;
      });
      return { key, text: `"${body}"` };
    }),
  );

  const NUMBERS = ['0', '-0', '1.0', '1e2', '1E+2', '-12.75', '12345678901234567890123', '9007199254740993', '1e400'];
  const numberLiteral = fc.oneof(
    fc.constantFrom(...NUMBERS),
    fc.integer().map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  );

  interface Member {
    key: string;
    /** The member's bytes, from its key's quote to its value's last byte. */
    text: string;
    value: string;
  }

  const member = (value: fc.Arbitrary<string>) =>
    fc.tuple(keyLiteral, SPACE, SPACE, value).map(([key, a, b, text]) => ({
      key: key.key,
      text: `${key.text}${a}:${b}${text}`,
      value: text,
    }));

  const objectOf = (members: Member[], spaces: string[]) =>
    `{${spaces[0]}${members.map((m, i) => (i === 0 ? '' : `${spaces[i % spaces.length]},${spaces[(i + 1) % spaces.length]}`) + m.text).join('')}${spaces[spaces.length - 1]}}`;

  const valueLiteral: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      numberLiteral,
      stringLiteral(fc.constantFrom(...CHARS)),
      fc.constantFrom('true', 'false', 'null'),
      fc
        .tuple(fc.array(tie('value'), { maxLength: 3 }), SPACE)
        .map(([items, space]) => `[${space}${items.join(`${space},`)}]`),
      fc
        .tuple(fc.array(member(tie('value')), { maxLength: 4 }), fc.array(SPACE, { minLength: 1, maxLength: 3 }))
        .map(([members, spaces]) => objectOf(members, spaces)),
    ),
  })).value;

  /** A message text: an object of members (keys repeat now and then), with spacing before and after. */
  const message = fc
    .tuple(
      fc.array(member(valueLiteral), { maxLength: 7 }),
      fc.array(SPACE, { minLength: 1, maxLength: 3 }),
      SPACE,
      SPACE,
    )
    .map(([members, spaces, before, after]) => ({ members, text: `${before}${objectOf(members, spaces)}${after}` }));

  const editValue = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom('12345678901234567890123', '-0', '1e400').map((n) => JSON.rawJSON(n)),
  );
  const edits = fc.array(
    fc.record({
      path: fc.oneof(
        fc.constantFrom(...KEYS).map((k): Path => [k]),
        fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom(...KEYS)).map(([k, m]): Path => [k, m]),
      ),
      value: fc.option(editValue, { nil: undefined }),
    }),
    { maxLength: 6 },
  );

  /** The edits applied to a plain object, as the relay means them: the model `message` must equal. */
  function model(text: string, steps: Array<{ path: Path; value: unknown }>): Record<string, unknown> {
    const set = (target: Record<string, unknown>, key: string, value: unknown) => {
      if (value === undefined) delete target[key];
      else Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    };
    let current = parseJson(text) as Record<string, unknown>;
    for (const { path, value } of steps) {
      current = { ...current };
      const [top, inner] = path;
      if (inner === undefined) {
        set(current, top, value);
        continue;
      }
      const parent = current[top];
      // A number kept as its text is a number, not an object to edit inside.
      const copy =
        parent !== null && typeof parent === 'object' && !Array.isArray(parent) && !isExactNumber(parent)
          ? { ...(parent as Record<string, unknown>) }
          : {};
      set(copy, inner, value);
      set(current, top, copy);
    }
    return current;
  }

  const lastOf = (members: Member[], key: string) => members.filter((m) => m.key === key).pop();

  test('after any edits at depth 1 or 2, the text written reads back as the message, and the message is the model', () => {
    fc.assert(
      fc.property(message, edits, ({ text }, steps) => {
        let frame = Frame.read(text);
        for (const { path, value } of steps) frame = frame.with(path, value);
        sameJson(frame.message, model(text, steps));
        sameJson(written(frame), frame.message);
        const line = frame.chunks(true).join('');
        expect(line).not.toMatch(/[\r\n]/);
        sameJson(parseJson(line), frame.message);
      }),
      { numRuns: 3000 },
    );
  });

  test('every top-level member no edit touched is written with its own bytes', () => {
    fc.assert(
      fc.property(message, edits, ({ text, members }, steps) => {
        let frame = Frame.read(text);
        for (const { path, value } of steps) frame = frame.with(path, value);
        const out = frame.encode();
        const touched = new Set(steps.map((s) => s.path[0]));
        for (const key of new Set(members.map((m) => m.key))) {
          if (!touched.has(key)) expect(out).toContain(lastOf(members, key)!.text);
        }
        if (steps.length === 0) expect(out).toBe(text);
        // Inside an object edited one level down, the members no edit named keep their bytes too.
        for (const top of touched) {
          const parent = lastOf(members, top);
          const edited = steps.filter((s) => s.path[0] === top);
          if (!parent?.value.startsWith('{') || edited.some((s) => s.path.length === 1)) continue;
          const inner = objectAt(parent.value, 0)!;
          const names = new Set(edited.map((s) => s.path[1]));
          for (const m of inner.members) {
            const last = inner.members.filter((n) => n.key === m.key).pop()!;
            if (!names.has(m.key)) expect(out).toContain(parent.value.slice(last.start, last.valueEnd));
          }
        }
      }),
      { numRuns: 3000 },
    );
  });
});
