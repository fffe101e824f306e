import { budgetIsOurs } from '../../src/cli/v8-tiering.js';

describe('v8-tiering: the interrupt budget the CLI sets', () => {
  test('set unless the node command line sets it', () => {
    expect(budgetIsOurs([])).toBe(true);
    expect(budgetIsOurs(['--enable-source-maps', '--max-old-space-size=4096'])).toBe(true);
    expect(budgetIsOurs(['--interrupt-budget=1000'])).toBe(false);
    expect(budgetIsOurs(['--interrupt-budget', '1000'])).toBe(false);
  });
});
