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

/**
 * V8 allocates a function's feedback vector (where its inline caches learn the shapes they see) only once the function
 * has run for a while; until then its calls gather nothing to optimize on. Over HTTP, where each request runs a few
 * hundred small functions of Node's HTTP stack and ours, allocating it at the first call let them reach optimized
 * code sooner: in front of a Streamable HTTP server (`ab-small-calls --url`, 8 interleaved rounds) a fresh proxy's
 * CPU per call with 16 in flight fell by a quarter, and its sequential added median by 12 and 33 % in two runs
 * (docs/performance.md, "Feedback from the first call"). Over stdio it changed nothing measurable, so stdio keeps
 * V8's default.
 */
export const HTTP_FEEDBACK_FLAG = '--no-lazy-feedback-allocation';

/** Whether the node command line sets V8 flag `flag` itself, either way (`--x`, `--no-x`, `--x=N`, `--x N`). */
export function setOnCommandLine(execArgv: readonly string[], flag: string): boolean {
  const name = (arg: string) =>
    arg
      .split('=')[0]
      .replace(/^--(no-)?/, '')
      .replaceAll('_', '-');
  return execArgv.some((arg) => arg.startsWith('--') && name(arg) === name(flag));
}

/** Whether the command line leaves the budget to us (`node --interrupt-budget=N dist/cli.js` sets it itself). */
export function budgetIsOurs(execArgv: readonly string[]): boolean {
  return !setOnCommandLine(execArgv, '--interrupt-budget');
}

/** The V8 flag that sets `budget`, or undefined when the node command line has set one of its own. */
export function budgetFlag(execArgv: readonly string[], budget: number): string | undefined {
  return budgetIsOurs(execArgv) ? `--interrupt-budget=${budget}` : undefined;
}

/** The V8 flags a proxy that serves HTTP sets: those the node command line does not set itself. */
export function httpFlags(execArgv: readonly string[]): string[] {
  const budget = budgetFlag(execArgv, HTTP_INTERRUPT_BUDGET);
  const feedback = setOnCommandLine(execArgv, HTTP_FEEDBACK_FLAG) ? undefined : HTTP_FEEDBACK_FLAG;
  return [budget, feedback].filter((flag) => flag !== undefined);
}

function setBudget(budget: number): void {
  const flag = budgetFlag(process.execArgv, budget);
  if (flag) setFlagsFromString(flag);
}

/**
 * Called by the CLI once its config says it serves HTTP: functions take the new budget as they next spend theirs, and
 * those first called from now on (the request path's) get their feedback vectors at once.
 */
export function tierForHttp(): void {
  for (const flag of httpFlags(process.execArgv)) setFlagsFromString(flag);
}

// Imported first by cli.ts, so this runs before the proxy's other modules do; only in the proxy's own process (a
// program that embeds the library keeps its own flags).
setBudget(INTERRUPT_BUDGET);
