// cspell:ignore jitless
import { setFlagsFromString } from 'node:v8';

/**
 * V8's tiering thresholds once the proxy serves. By default V8 optimizes a function with TurboFan after some 3000
 * calls (Node 22 leaves Maglev off), so a proxy runs its per-message code interpreted for its first few thousand
 * messages — most of a short session. Lowered, that code is optimized after a few hundred: over calls 101 to 2100 of
 * a stdio session the proxy's added latency fell from 0.134 to 0.073 ms a call. It is the same compiling, done
 * sooner on V8's compiler threads; the main thread spends less (docs/performance.md). Set only once the proxy serves:
 * set at start, the start-up code (config, schemas, the SDK's modules) was optimized too, for 40 % more start-up CPU
 * and 4 MiB more memory, for code that runs once. Tiering flags change when V8 compiles, never what the code does.
 */
const EARLY_TIERING = ['--invocation-count-for-turbofan=300', '--minimum-invocations-after-ic-update=100'];

/** Node options that say the user chose how V8 compiles: theirs are kept. */
const CHOSEN =
  /^--(?:invocation-count-for-turbofan|minimum-invocations-after-ic-update|jitless|no-opt|no-turbofan|max-opt)\b/;

/** Lowers the tiering thresholds, unless the process was started with its own; returns the flags it set. */
export function tierEarly(execArgv: readonly string[] = process.execArgv): string[] {
  if (execArgv.some((arg) => CHOSEN.test(arg.replaceAll('_', '-')))) return [];
  setFlagsFromString(EARLY_TIERING.join(' '));
  return EARLY_TIERING;
}
