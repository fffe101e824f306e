// The lean paths' cache of the SDK's verdicts on 2026-07-28 envelopes (fast-path/envelope-verdicts.ts): each distinct
// envelope is judged once, an envelope equal to the last one held is known without being judged or serialized, and
// a refused one stays refused.
import { describe, expect, test } from '@jest/globals';
import { EnvelopeVerdicts, sameJson } from '../../src/fast-path/envelope-verdicts.js';

const envelope = (capabilities: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

describe('sameJson', () => {
  test.each([
    [{ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }, true],
    [{ a: 1 }, { a: 1, b: undefined }, false],
    [{ a: [] }, { a: {} }, false],
    [{ a: [1, 2] }, { a: [2, 1] }, false],
    [{ a: '1' }, { a: 1 }, false],
    [{ a: { b: { c: 'x' } } }, { a: { b: { c: 'y' } } }, false],
    [null, {}, false],
    ['x', 'x', true],
  ])('%j and %j: %s', (a, b, same) => {
    expect(sameJson(a, b)).toBe(same);
    expect(sameJson(b, a)).toBe(same);
  });
});

describe('EnvelopeVerdicts', () => {
  test('each envelope is judged once; one equal to the last held is not judged again', () => {
    const judged: unknown[] = [];
    const verdicts = new EnvelopeVerdicts((e) => {
      judged.push(e);
      return e['io.modelcontextprotocol/clientCapabilities'] !== 'none';
    });
    expect(verdicts.holds(envelope())).toBe(true);
    expect(verdicts.holds(envelope())).toBe(true);
    expect(verdicts.holds(envelope({ sampling: {} }))).toBe(true);
    expect(verdicts.holds(envelope())).toBe(true);
    expect(judged).toHaveLength(2);
    const refused = { ...envelope(), 'io.modelcontextprotocol/clientCapabilities': 'none' };
    expect(verdicts.holds(refused)).toBe(false);
    expect(verdicts.holds({ ...refused })).toBe(false);
    expect(judged).toHaveLength(3);
    // A refusal does not replace the last envelope held.
    expect(verdicts.holds(envelope({ sampling: {} }))).toBe(true);
    expect(judged).toHaveLength(3);
  });

  test('past 32 envelopes the kept verdicts start over, and are judged again', () => {
    let judged = 0;
    const verdicts = new EnvelopeVerdicts(() => {
      judged++;
      return false;
    });
    for (let i = 0; i < 33; i++) verdicts.holds(envelope({ n: i }));
    expect(judged).toBe(33);
    verdicts.holds(envelope({ n: 0 }));
    expect(judged).toBe(34);
  });
});
