/**
 * One capability call, start to finish: the session and capability checked, arguments validated,
 * `window.abp.call` made (through the session, which arms the guard), retryable app errors retried
 * with exponential back-off, and the outcome shaped for the artifact pipeline.
 */
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Logger } from '../../logger.js';
import { hasBinaryData } from './capabilities.js';
import type { AbpOptions } from '../../config/abp.js';
import type { BrowserSlot } from './pool.js';
import { appErrorResult, callResult, errorResult } from './results.js';
import { PageLostError, type CallOutcome } from './types.js';
import type { ArgumentValidator } from './validation.js';

/** A call in flight, so the app's progress and elicitations reach the request they belong to. */
export interface ActiveCall {
  slot: string;
  capability: string;
  progressToken?: string | number;
  requestId: string | number;
  signal: AbortSignal;
  sendNotification(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
}

export class CallRunner {
  /** By callId (a fresh one per attempt). */
  readonly active = new Map<string, ActiveCall>();

  constructor(
    private readonly options: AbpOptions,
    private readonly validator: ArgumentValidator,
    private readonly log: Logger,
  ) {}

  async run(
    slot: BrowserSlot,
    name: string,
    params: Record<string, unknown>,
    request: Omit<ActiveCall, 'slot' | 'capability'>,
  ): Promise<CallToolResult> {
    const session = slot.session;
    if (!session || !slot.registry) return errorResult(notConnected(slot.name));
    const capability = slot.registry.get(name);
    if (!capability) {
      const known = slot.registry.tools().map((t) => t.capability.name);
      return errorResult(
        `UNKNOWN_CAPABILITY: the app in session "${slot.name}" has no capability "${name}". Available: ${known.join(', ') || 'none'}`,
      );
    }
    if (capability.available === false) {
      return errorResult(
        `NOT_AVAILABLE: capability "${name}" is not available in session "${slot.name}" (the app does not offer it now)`,
      );
    }
    const invalid = this.validator.check(name, capability.inputSchema, params);
    if (invalid) return errorResult(`INVALID_PARAMS: ${invalid}`);

    const { maxRetries, initialDelayMs } = this.options.retries;
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      const callId = randomUUID();
      this.active.set(callId, { ...request, slot: slot.name, capability: name });
      let outcome: CallOutcome;
      try {
        this.log.info({ session: slot.name, capability: name, attempt: attempt + 1 }, 'calling capability');
        outcome = await session.call(name, params, {
          timeoutMs: this.options.callTimeoutMs,
          callId,
          ...(request.progressToken !== undefined ? { progressToken: request.progressToken } : {}),
          signal: request.signal,
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.log.warn({ session: slot.name, capability: name, err: message }, 'capability call failed');
        return errorResult(error instanceof PageLostError ? message : `OPERATION_FAILED: ${message}`);
      } finally {
        this.active.delete(callId);
      }
      const { response } = outcome;
      if (response.success) {
        this.log.info(
          { session: slot.name, capability: name, durationMs: Date.now() - started },
          'capability succeeded',
        );
        return callResult(outcome, hasBinaryData(response.data));
      }
      if (response.cancelled || request.signal.aborted) return appErrorResult(response.error, { cancelled: true });
      const error = response.error;
      if (error?.retryable && attempt < maxRetries) {
        const delay = initialDelayMs * 2 ** attempt;
        this.log.info(
          { session: slot.name, capability: name, code: error.code, delayMs: delay },
          'retryable error; retrying',
        );
        await pause(delay, request.signal);
        if (request.signal.aborted) return appErrorResult(undefined, { cancelled: true });
        continue;
      }
      this.log.info(
        { session: slot.name, capability: name, code: error?.code, attempts: attempt + 1 },
        'capability failed',
      );
      return appErrorResult(error, { attempts: attempt + 1 });
    }
  }

  /** The call in flight a progress report is about: the app echoes our progress token as `operationId`. */
  byProgressToken(slot: string, operationId: string | number): ActiveCall | undefined {
    for (const call of this.active.values()) {
      if (call.slot === slot && call.progressToken !== undefined && String(call.progressToken) === String(operationId))
        return call;
    }
    return undefined;
  }

  /** The newest call of a slot: an app elicits on behalf of the call it is serving. */
  latest(slot: string): ActiveCall | undefined {
    return [...this.active.values()].reverse().find((call) => call.slot === slot);
  }
}

export function notConnected(session: string): string {
  return `NOT_CONNECTED: no ABP app is connected in session "${session}"; call abp_connect first`;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
