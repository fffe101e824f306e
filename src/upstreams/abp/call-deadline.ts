/**
 * `window.abp.call` with the agent's deadline and cancellation: the app's answer, or ours when it takes
 * longer than the call timeout or the agent cancels; either way the app is asked to cancel.
 */
import type { Page } from 'puppeteer-core';
import type { Logger } from '../../logger.js';
import { callInPage, cancelInPage } from './runtime.js';
import type { AbpResponse, CallOptions } from './types.js';

/** Lets the app's own TIMEOUT answer (with its details) arrive before ours. */
const CALL_GRACE_MS = 250;
/** How long a cancelled call may take to answer `{cancelled: true}` itself. */
const ABORT_GRACE_MS = 1000;

/** The app's answer, or ours when it takes longer than the call timeout or the call is cancelled. */
export async function callWithDeadline(
  page: Page,
  capability: string,
  params: unknown,
  options: CallOptions,
  logger: Logger,
): Promise<AbpResponse> {
  const { timeoutMs, callId, progressToken, signal } = options;
  const callOptions = { timeout: timeoutMs, callId, ...(progressToken !== undefined ? { progressToken } : {}) };
  const answered = callInPage(page, capability, params ?? {}, callOptions);
  answered.catch(() => undefined); // may settle after we stopped waiting
  const timers: NodeJS.Timeout[] = [];
  const cancel = (): void => {
    cancelInPage(page, callId)
      .then((had) => logger.info({ capability, callId, appCancels: had }, 'call cancelled'))
      .catch((error: unknown) => logger.debug({ err: error }, 'could not cancel in the page'));
  };
  const timedOut = new Promise<AbpResponse>((resolve) => {
    timers.push(
      setTimeout(() => {
        cancel();
        resolve({
          success: false,
          error: { code: 'TIMEOUT', message: `${capability} did not answer within ${timeoutMs} ms`, retryable: false },
        });
      }, timeoutMs + CALL_GRACE_MS),
    );
  });
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<AbpResponse>((resolve) => {
    if (!signal) return;
    onAbort = () => {
      cancel();
      const response: AbpResponse = {
        success: false,
        cancelled: true,
        error: { code: 'CANCELLED', message: `${capability} was cancelled`, retryable: false },
      };
      timers.push(setTimeout(() => resolve(response), ABORT_GRACE_MS));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([answered, timedOut, aborted]);
  } finally {
    timers.forEach(clearTimeout);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
