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

/**
 * The budget once the proxy knows it serves HTTP. A request there runs far more JavaScript than a stdio line (Node's
 * HTTP server, parser and client, headers, streams), so more of it is worth optimizing early: 6000 cut the proxy's
 * CPU per call over a fresh process's first two thousand calls by a seventh in front of a Streamable HTTP server.
 * Over stdio the same budget saved less than it cost at startup (30 ms more to answer `initialize`), so stdio keeps
 * INTERRUPT_BUDGET.
 */
export const HTTP_INTERRUPT_BUDGET = 6000;

/** Whether the command line leaves the budget to us (`node --interrupt-budget=N dist/cli.js` sets it itself). */
export function budgetIsOurs(execArgv: readonly string[]): boolean {
  return !execArgv.some((arg) => arg === '--interrupt-budget' || arg.startsWith('--interrupt-budget='));
}

/** The V8 flag that sets `budget`, or undefined when the node command line has set one of its own. */
export function budgetFlag(execArgv: readonly string[], budget: number): string | undefined {
  return budgetIsOurs(execArgv) ? `--interrupt-budget=${budget}` : undefined;
}

function setBudget(budget: number): void {
  const flag = budgetFlag(process.execArgv, budget);
  if (flag) setFlagsFromString(flag);
}

/** Called by the CLI once its config says it serves HTTP: functions take the new budget as they next spend theirs. */
export function tierForHttp(): void {
  setBudget(HTTP_INTERRUPT_BUDGET);
}

// Imported first by cli.ts, so this runs before the proxy's other modules do; only in the proxy's own process (a
// program that embeds the library keeps its own flags).
setBudget(INTERRUPT_BUDGET);
