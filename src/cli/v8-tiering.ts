import { setFlagsFromString } from 'node:v8';

/**
 * How much bytecode a function runs between V8's checks of whether to optimize it (V8's default: 67584 in Node 20).
 *
 * A relay runs one short path per message, so its hot functions each run a few dozen bytecodes per call: at V8's
 * default they reach optimized code only after a few thousand calls, and until then every call runs interpreted,
 * several times slower (docs/performance.md, "A fresh process"). A quarter of the default brings them there within
 * the first few hundred calls. Measured on small calls over stdio in fresh processes: the added median fell from
 * 2.8 to 1.6 times a bare byte relay's, and the proxy's CPU per call by a sixth; the optimizing work is the same,
 * done sooner.
 */
export const INTERRUPT_BUDGET = 16_000;

/** Whether the command line leaves the budget to us (`node --interrupt-budget=N dist/cli.js` sets it itself). */
export function budgetIsOurs(execArgv: readonly string[]): boolean {
  return !execArgv.some((arg) => arg === '--interrupt-budget' || arg.startsWith('--interrupt-budget='));
}

// Imported first by cli.ts, so this runs before the proxy's other modules do; only in the proxy's own process (a
// program that embeds the library keeps its own flags).
if (budgetIsOurs(process.execArgv)) setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET}`);
