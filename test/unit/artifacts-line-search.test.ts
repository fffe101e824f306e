// artifact_read's pattern search (#34 finding 2): RE2 in a worker thread, with a time budget; what RE2 cannot run is
// refused by name. The hostile probe (test/hostile/client-artifact-read-pattern.test.ts) checks the proxy keeps
// answering meanwhile.
import { describe, expect, test } from '@jest/globals';
import { MAX_PATTERN_CHARS, searchLines } from '../../src/artifacts/line-search.js';
import { unsupportedConstruct } from '../../src/artifacts/pattern-syntax.js';

/** A megabyte of lines a nested quantifier cannot match but (backtracking) tries 2^40 ways to. */
const ALMOST = `${'a'.repeat(40)}!\n`.repeat(25_000);

describe('searchLines', () => {
  test('matching lines with their numbers, case-insensitive, as splitLines counts them', async () => {
    expect(await searchLines('alpha\r\nBeta\n\ngamma beta\n', 'beta', 200, 1_000)).toEqual({
      hits: ['2: Beta', '4: gamma beta'],
      lines: 4,
    });
    expect(await searchLines('', 'x', 200, 1_000)).toEqual({ hits: [], lines: 0 });
  });

  test.each(['^(a+)+$', '^(a|aa)+b', '(.*a){20}x', '(x+x+)+y'])(
    'the catastrophic pattern %s searches a megabyte to the end',
    async (pattern) => {
      const found = await searchLines(ALMOST, pattern, 200, 1_000);
      expect(found).toEqual({ hits: [], lines: 25_000 });
    },
  );

  test('at most maxHits lines, each cut at lineChars', async () => {
    const found = await searchLines(ALMOST, 'a!$', 3, 10);
    expect(found.hits).toEqual(['1: aaaaaaaaaa', '2: aaaaaaaaaa', '3: aaaaaaaaaa']);
  });

  test('a search that outruns its budget stops and says where', async () => {
    // Linear, but 6 000 instructions for every character of a megabyte: about two minutes without the budget.
    const found = await searchLines(`${'ab'.repeat(500_000)}\nab\n`, '(a|b){999}(a|b){999}x', 200, 1_000);
    expect(found).toEqual({ hits: [], lines: 2, stoppedAt: 0 });
  });

  test('an invalid pattern is a clear error', async () => {
    await expect(searchLines('a', '(unclosed', 200, 1_000)).rejects.toThrow(
      /^pattern is not a valid regular expression \(RE2 syntax\): .*missing closing \)/,
    );
  });

  test('a pattern RE2 cannot run is refused by the name of what it uses', async () => {
    await expect(searchLines('aa', '(a)\\1', 200, 1_000)).rejects.toThrow(
      /^pattern uses a backreference \(\\1\), which artifact_read cannot search: patterns run on RE2 syntax/,
    );
    await expect(searchLines('ab', '(?<=a)b', 200, 1_000)).rejects.toThrow(/^pattern uses a lookbehind \(\(\?<=…\)/);
  });

  test('a pattern too long to compile cheaply is refused', async () => {
    await expect(searchLines('a', 'a'.repeat(MAX_PATTERN_CHARS + 1), 200, 1_000)).rejects.toThrow(
      `pattern is ${MAX_PATTERN_CHARS + 1} characters long; at most ${MAX_PATTERN_CHARS} are searched`,
    );
  });
});

describe('unsupportedConstruct', () => {
  test.each([
    ['(a)\\1', 'a backreference (\\1)'],
    ['(?<x>a)\\k<x>', 'a named backreference (\\k<name>)'],
    ['foo(?=bar)', 'a lookahead ((?=…)'],
    ['foo(?!bar)', 'a negative lookahead ((?!…)'],
    ['(?<=foo)bar', 'a lookbehind ((?<=…)'],
    ['(?<!foo)bar', 'a negative lookbehind ((?<!…)'],
  ])('%s uses %s', (pattern, construct) => {
    expect(unsupportedConstruct(pattern)).toBe(construct);
  });

  test.each(['\\\\1', '[(?=]', '[]\\]1(?!]', '(?:a)(?i)b', '(?<name>a)', '\\(?=', 'a{1,2}\\d\\w'])(
    '%s is fine (escaped, in a class, or a group RE2 knows)',
    (pattern) => {
      expect(unsupportedConstruct(pattern)).toBeUndefined();
    },
  );
});
