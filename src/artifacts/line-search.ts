import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { LINE_SEARCH_WORKER } from './line-search-worker.js';
import { unsupportedConstruct } from './pattern-syntax.js';

/** The longest pattern searched: RE2 compiles in time and memory that grow with it. */
export const MAX_PATTERN_CHARS = 1_000;
/** How long one search may run: RE2 is linear in the text, but the constant grows with the pattern. */
export const SEARCH_BUDGET_MS = 2_000;
/** Searches running at once, each in a thread of its own; more wait their turn. */
const MAX_RUNNING = 2;

export interface LineSearch {
  /** `<number>: <line>` for each matching line, in order. */
  hits: string[];
  /** Lines in the text. */
  lines: number;
  /** Set when the budget ran out: how many lines had been searched then. */
  stoppedAt?: number;
}

/**
 * The lines of `text` that `pattern` (case-insensitive) matches, at most `maxHits`, each cut at `lineChars`.
 * A client's pattern never runs on the event loop: catastrophic backtracking (`(a+)+$` on `aaa…a!`) froze every
 * session when it did. It runs on RE2 (re2js: linear time, no backtracking) in a worker thread that is ended when
 * `SEARCH_BUDGET_MS` runs out, since a linear search of a big text with a big pattern still takes long (a
 * `(a|b){999}(a|b){999}x` over 1 MB: two minutes). What RE2 cannot express is refused with its name.
 */
export async function searchLines(
  text: string,
  pattern: string,
  maxHits: number,
  lineChars: number,
): Promise<LineSearch> {
  if (pattern.length > MAX_PATTERN_CHARS)
    throw new Error(`pattern is ${pattern.length} characters long; at most ${MAX_PATTERN_CHARS} are searched`);
  const unsupported = unsupportedConstruct(pattern);
  if (unsupported)
    throw new Error(
      `pattern uses ${unsupported}, which artifact_read cannot search: patterns run on RE2 syntax, in time linear in ` +
        'the text, and backreferences and lookaround have no such algorithm. Match the text around it instead.',
    );
  await turn();
  try {
    return await runWorker({ text, pattern, maxHits, lineChars });
  } finally {
    done();
  }
}

/** Where re2js's CommonJS build is, for the worker to require (it has no module of the proxy's to import from). */
let re2jsPath: string | undefined;

function runWorker(data: { text: string; pattern: string; maxHits: number; lineChars: number }): Promise<LineSearch> {
  re2jsPath ??= createRequire(import.meta.url).resolve('re2js');
  const worker = new Worker(LINE_SEARCH_WORKER, { eval: true, workerData: { ...data, re2js: re2jsPath } });
  const found: LineSearch = { hits: [], lines: 0 };
  let reached = 0;
  return new Promise<LineSearch>((resolve, reject) => {
    const end = (outcome: () => void) => {
      clearTimeout(budget);
      worker.removeAllListeners();
      worker.on('error', () => undefined); // a late error of a thread being ended is nobody's
      void worker.terminate();
      outcome();
    };
    const budget = setTimeout(() => end(() => resolve({ ...found, stoppedAt: reached })), SEARCH_BUDGET_MS);
    worker.on('message', (message: WorkerMessage) => {
      if ('invalid' in message)
        end(() => reject(new Error(`pattern is not a valid regular expression (RE2 syntax): ${message.invalid}`)));
      else if ('lines' in message) found.lines = message.lines;
      else if ('hit' in message) found.hits.push(message.hit);
      else if ('reached' in message) reached = message.reached;
      else end(() => resolve(found));
    });
    worker.on('error', (error) =>
      end(() => reject(new Error(`the search failed: ${error.message}`, { cause: error }))),
    );
    worker.on('exit', (code) => end(() => reject(new Error(`the search ended early (exit code ${code})`))));
  });
}

type WorkerMessage = { invalid: string } | { lines: number } | { hit: string } | { reached: number } | { done: true };

let running = 0;
const waiting: Array<() => void> = [];

/** Resolves when a search may start: at most `MAX_RUNNING` threads search at once, whatever the clients ask. */
function turn(): Promise<void> {
  if (running < MAX_RUNNING) {
    running++;
    return Promise.resolve();
  }
  return new Promise((resolve) => waiting.push(resolve));
}

function done(): void {
  const next = waiting.shift();
  if (next) next();
  else running--;
}
