/**
 * The code of the thread that runs one `artifact_read` pattern search (see line-search.ts), as the text a
 * `Worker` evaluates: the proxy runs from `dist/` and from its TypeScript sources under jest alike, and a worker
 * file would exist in only one of them. It requires nothing but worker_threads and re2js (its path comes in
 * `workerData`), and talks in small messages:
 *
 * - `{ invalid }`: the pattern did not compile (RE2's message);
 * - `{ lines }`: how many lines the text has, before the search starts;
 * - `{ hit }`: one matching line, `<number>: <line>`, the line cut at `workerData.lineChars`;
 * - `{ reached }`: how many lines were searched, now and then, so a search stopped on its budget can say where;
 * - `{ done }`: the search ended (every line searched, or `workerData.maxHits` found).
 *
 * Lines are split as `splitLines` (lines.ts) splits them: a newline or `\r\n` ends a line, a final one starts none.
 */
export const LINE_SEARCH_WORKER = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { RE2JS } = require(workerData.re2js);
(() => {
  let regex;
  try {
    regex = RE2JS.compile(workerData.pattern, RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    parentPort.postMessage({ invalid: String((error && error.message) || error) });
    return;
  }
  const text = workerData.text;
  const lines = text === '' ? [] : text.split(/\\r?\\n/);
  if (text.endsWith('\\n')) lines.pop();
  parentPort.postMessage({ lines: lines.length });
  let hits = 0;
  for (let i = 0; i < lines.length && hits < workerData.maxHits; i++) {
    if (regex.test(lines[i])) {
      hits++;
      parentPort.postMessage({ hit: (i + 1) + ': ' + lines[i].slice(0, workerData.lineChars) });
    }
    if (i % 1024 === 1023) parentPort.postMessage({ reached: i + 1 });
  }
  parentPort.postMessage({ done: true });
})();
`;
