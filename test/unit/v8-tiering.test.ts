import {
  budgetFlag,
  budgetIsOurs,
  HTTP_INTERRUPT_BUDGET,
  httpFlags,
  INTERRUPT_BUDGET,
  setOnCommandLine,
} from '../../src/cli/v8-tiering.js';

describe('v8-tiering: the interrupt budget the CLI sets', () => {
  test('set unless the node command line sets it', () => {
    expect(budgetIsOurs([])).toBe(true);
    expect(budgetIsOurs(['--enable-source-maps', '--max-old-space-size=4096'])).toBe(true);
    expect(budgetIsOurs(['--interrupt-budget=1000'])).toBe(false);
    expect(budgetIsOurs(['--interrupt-budget', '1000'])).toBe(false);
  });

  test('stdio starts with the larger budget, HTTP gets the smaller one, and a budget on the command line wins', () => {
    expect(budgetFlag([], INTERRUPT_BUDGET)).toBe('--interrupt-budget=16000');
    expect(budgetFlag([], HTTP_INTERRUPT_BUDGET)).toBe('--interrupt-budget=6000');
    expect(budgetFlag(['--interrupt-budget=1000'], HTTP_INTERRUPT_BUDGET)).toBeUndefined();
  });

  test('a flag counts as set on the command line in any of its spellings, and only that flag', () => {
    for (const argv of [
      ['--lazy-feedback-allocation'],
      ['--no-lazy-feedback-allocation'],
      ['--no-lazy_feedback_allocation'],
      ['--lazy-feedback-allocation=false'],
    ])
      expect(setOnCommandLine(argv, '--no-lazy-feedback-allocation')).toBe(true);
    expect(setOnCommandLine(['--lazy-feedback'], '--no-lazy-feedback-allocation')).toBe(false);
    expect(setOnCommandLine(['--interrupt-budget-factor=2'], '--interrupt-budget')).toBe(false);
  });

  test('HTTP also allocates feedback at the first call, unless the command line says otherwise about either flag', () => {
    expect(httpFlags([])).toEqual(['--interrupt-budget=6000', '--no-lazy-feedback-allocation']);
    expect(httpFlags(['--lazy-feedback-allocation'])).toEqual(['--interrupt-budget=6000']);
    expect(httpFlags(['--interrupt-budget=9000'])).toEqual(['--no-lazy-feedback-allocation']);
    expect(httpFlags(['--interrupt-budget', '9000', '--no-lazy-feedback-allocation'])).toEqual([]);
  });
});
