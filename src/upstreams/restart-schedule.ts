import type { RestartPolicy } from '../config/types.js';

/** Exponential backoff for restarts: initial, 2x, 4x, ... capped; `undefined` once retries run out. */
export class RestartSchedule {
  attempts = 0;

  constructor(private readonly policy: RestartPolicy) {}

  next(): number | undefined {
    if (this.policy.maxRetries > 0 && this.attempts >= this.policy.maxRetries) return undefined;
    const delay = Math.min(this.policy.initialDelayMs * 2 ** this.attempts, this.policy.maxDelayMs);
    this.attempts++;
    return delay;
  }

  reset(): void {
    this.attempts = 0;
  }
}
