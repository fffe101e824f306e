import { budgetFlag, budgetIsOurs, HTTP_INTERRUPT_BUDGET, INTERRUPT_BUDGET } from '../../src/cli/v8-tiering.js';

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
});
