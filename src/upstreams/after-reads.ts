/**
 * Runs `task` once the event loop has handled what it read this turn (its check phase, as `setImmediate` does), in
 * the order given.
 *
 * One immediate serves every task queued in a turn. With an immediate of its own per relayed answer, a sequential
 * client's calls only ever had one queued at a time; the first burst of concurrent calls then queued several, which
 * changed the field types V8 had assumed of Node's immediate list and threw away the optimized code of everything
 * that had inlined it: a fresh compile of the whole answer path just when calls pile up (a third more CPU per call
 * over the first two thousand calls with 16 in flight, docs/performance.md).
 */
export function afterReads(task: () => void): void {
  queue.push(task);
  if (queue.length === 1) setImmediate(runQueued);
}

/**
 * Runs `task` (an answer read from an upstream) at once when nothing read before it may still be on its way to the
 * client, else as `afterReads` does. What may be on its way: a message handed to the SDK client since the last check
 * phase (`handedOver`: a log message or a question, whose handlers run in microtasks), or an answer already queued.
 * An answer that waits for nothing then skips a turn of the event loop: over HTTP, everything the upstream
 * connection's response still has to do (its end, the agent taking its socket back) came before it.
 */
export function whenReadsAllow(task: () => void): void {
  if (unsettled || queue.length > 0) return afterReads(task);
  run(task);
}

/** A message read from an upstream went to the SDK client, whose handlers run in microtasks (see whenReadsAllow). */
export function handedOver(): void {
  if (unsettled) return;
  unsettled = true;
  setImmediate(settle);
}

let queue: Array<() => void> = [];
let unsettled = false;

function settle(): void {
  unsettled = false;
}

function runQueued(): void {
  const tasks = queue;
  queue = [];
  for (let i = 0; i < tasks.length; i++) run(tasks[i]!);
}

function run(task: () => void): void {
  try {
    task();
  } catch (error) {
    // A throwing task fails as it would in an immediate of its own, and the tasks after it still run.
    process.nextTick(() => {
      throw error;
    });
  }
}
