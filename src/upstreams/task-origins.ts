import type { Result } from '@modelcontextprotocol/client';

/** Tasks remembered per connection; the oldest are forgotten first (a task outlives its ttl rarely by much). */
const MAX_TASKS = 1000;

/**
 * Which tool started each task an upstream runs, learnt from the `tools/call` that answered with a task handle:
 * a task's result is the result of that tool, and goes through the pipeline as one (`tasks/get` in the modern
 * era's tasks extension, `tasks/result` in the legacy era).
 */
export class TaskOrigins {
  private readonly tools = new Map<string, string>();

  /** `result` answered a `tools/call` of `tool`; a task handle is remembered. */
  noteStarted(result: Result, tool: string): void {
    const taskId = taskIdOf(result);
    if (taskId === undefined) return;
    this.tools.delete(taskId);
    this.tools.set(taskId, tool);
    if (this.tools.size > MAX_TASKS) this.tools.delete(this.tools.keys().next().value!);
  }

  /** The tool that started the task, if this connection started it. */
  toolOf(taskId: string): string | undefined {
    return this.tools.get(taskId);
  }
}

/**
 * The task a `tools/call` result hands back instead of the tool's result: flat in the modern era's tasks
 * extension (`resultType: "task"`, `taskId`), under `task` in the legacy era (2025-11-25).
 */
export function taskIdOf(result: Result): string | undefined {
  const flat = result as { resultType?: unknown; taskId?: unknown; task?: { taskId?: unknown } };
  if (flat.resultType === 'task' && typeof flat.taskId === 'string') return flat.taskId;
  if (Array.isArray((result as { content?: unknown }).content)) return undefined;
  const nested = flat.task?.taskId;
  return typeof nested === 'string' ? nested : undefined;
}
