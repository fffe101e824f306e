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

let queue: Array<() => void> = [];

function runQueued(): void {
  const tasks = queue;
  queue = [];
  for (let i = 0; i < tasks.length; i++) {
    try {
      tasks[i]!();
    } catch (error) {
      // A throwing task fails as it would in an immediate of its own, and the tasks after it still run.
      process.nextTick(() => {
        throw error;
      });
    }
  }
}
