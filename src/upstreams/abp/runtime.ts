/**
 * The `window.abp` protocol layer: every function here runs inside the page through `page.evaluate`, so
 * it may use nothing from this module's scope; parameters cross the boundary as JSON.
 */
import type { Page } from 'puppeteer-core';
import type { AbpResponse } from './types.js';

type Callback = (payload: unknown) => unknown;

interface AbpRuntimeObject {
  sessionId?: unknown;
  app?: unknown;
  initialize(params: unknown): unknown;
  listCapabilities(): unknown;
  call(name: string, params: unknown, options: unknown): unknown;
  cancel?(arg: unknown): unknown;
  shutdown?(params: unknown): unknown;
  onNotification?(cb: Callback): void;
  onProgress?(cb: Callback): void;
  onElicitation?(cb: Callback): void;
}

type PageGlobals = { abp?: AbpRuntimeObject } & Record<string, Callback | undefined>;

/** A page operation's deadline passed: the page's thread is busy (or stuck). */
export class PageBusyError extends Error {
  override name = 'PageBusyError';
}

/**
 * A page operation with a deadline. The browser runs without a protocol timeout (a capability call may
 * legitimately take as long as its own timeout says), so the short operations around it get one here:
 * an app stuck in an endless loop gives a clear error instead of a hang.
 */
export async function within<T>(operation: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new PageBusyError(`${what} did not finish within ${timeoutMs} ms (is the page busy or stuck?)`)),
      timeoutMs,
    );
  });
  operation.catch(() => undefined); // may settle after the deadline
  try {
    return await Promise.race([operation, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The names of the Node functions exposed to the page (the protocol's first event convention). */
export const EXPOSED = {
  notification: '__abp_notification',
  progress: '__abp_progress',
  elicitation: '__abp_elicitation',
  capabilitiesChanged: '__abp_capabilities_changed',
} as const;

export interface InitializeResult {
  /** The answer's, else `window.abp.sessionId`, as a string ('' when the app gives none). */
  sessionId: string;
  protocolVersion?: unknown;
  app?: unknown;
  capabilities?: unknown;
  features?: unknown;
}

/** Waits for an object with a `call` method at `window.abp`: apps built on frameworks define it late. */
export async function waitForAbp(page: Page, timeoutMs: number): Promise<void> {
  try {
    await page.waitForFunction(
      () => {
        const abp = (globalThis as unknown as PageGlobals).abp;
        return typeof abp === 'object' && abp !== null && typeof abp.call === 'function';
      },
      { timeout: timeoutMs, polling: 100 },
    );
  } catch (error) {
    if ((error as Error).name !== 'TimeoutError') throw error;
    throw new Error(
      `window.abp did not appear on ${page.url()} within ${timeoutMs} ms: the page does not implement ABP`,
      { cause: error },
    );
  }
}

export async function initialize(page: Page, params: unknown): Promise<InitializeResult> {
  const result = await page.evaluate(
    async (p) => {
      const abp = (globalThis as unknown as PageGlobals).abp!;
      if (typeof abp.initialize !== 'function') return { __error: 'window.abp has no initialize() method' };
      try {
        const answer = (await abp.initialize(p)) as Record<string, unknown> | null | undefined;
        return { answer: answer ?? null, sessionId: abp.sessionId ?? null, app: abp.app ?? null };
      } catch (e) {
        return { __error: `initialize() threw: ${e instanceof Error ? e.message : String(e)}` };
      }
    },
    params as Record<string, unknown>,
  );
  if ('__error' in result) throw new Error(String(result.__error));
  const answer: Record<string, unknown> =
    typeof result.answer === 'object' && result.answer !== null ? result.answer : {};
  const sessionId = answer.sessionId ?? result.sessionId;
  return {
    ...answer,
    sessionId: typeof sessionId === 'string' ? sessionId : String(sessionId ?? ''),
    app: answer.app ?? result.app ?? undefined,
  };
}

/** The callbacks of the second event convention (`abp.onX(cb)`), forwarding to the exposed functions. */
export async function registerCallbacks(page: Page, names: typeof EXPOSED): Promise<string[]> {
  return page.evaluate((n) => {
    const w = globalThis as unknown as PageGlobals;
    const abp = w.abp!;
    const registered: string[] = [];
    const pairs: Array<[keyof AbpRuntimeObject, string]> = [
      ['onNotification', n.notification],
      ['onProgress', n.progress],
      ['onElicitation', n.elicitation],
    ];
    for (const [method, exposed] of pairs) {
      const register = abp[method];
      if (typeof register !== 'function') continue;
      (register as (cb: Callback) => void).call(abp, (payload) => w[exposed]!(payload));
      registered.push(method);
    }
    return registered;
  }, names);
}

const MARK = '__abpClientInitialized';

/** Remembered in the document, so a reload the app does by itself (a fresh, uninitialized window.abp) shows. */
export async function markInitialized(page: Page): Promise<void> {
  await page.evaluate((mark) => {
    (globalThis as unknown as Record<string, unknown>)[mark] = true;
  }, MARK);
}

export async function isInitialized(page: Page): Promise<boolean> {
  return page.evaluate((mark) => (globalThis as unknown as Record<string, unknown>)[mark] === true, MARK);
}

export async function listCapabilities(page: Page): Promise<unknown> {
  const result = await page.evaluate(async () => {
    const abp = (globalThis as unknown as PageGlobals).abp!;
    if (typeof abp.listCapabilities !== 'function') return { __error: 'window.abp has no listCapabilities() method' };
    try {
      return { list: (await abp.listCapabilities()) ?? null };
    } catch (e) {
      return { __error: `listCapabilities() threw: ${e instanceof Error ? e.message : String(e)}` };
    }
  });
  if ('__error' in result) throw new Error(String(result.__error));
  return result.list;
}

/** `window.abp.call`; an exception in the app becomes an OPERATION_FAILED response, never a crash. */
export async function callInPage(
  page: Page,
  name: string,
  params: unknown,
  options: Record<string, unknown>,
): Promise<AbpResponse> {
  const answer: unknown = await page.evaluate(
    async (capability, args, callOptions) => {
      const abp = (globalThis as unknown as PageGlobals).abp;
      if (!abp || typeof abp.call !== 'function') {
        return {
          success: false,
          error: {
            code: 'NOT_INITIALIZED',
            message: 'window.abp is gone from the page (was it reloaded?)',
            retryable: false,
          },
        };
      }
      try {
        const answer = (await abp.call(capability, args, callOptions)) as Record<string, unknown> | null;
        if (typeof answer !== 'object' || answer === null || typeof answer.success !== 'boolean') {
          const shown = JSON.stringify(answer) ?? String(answer);
          return {
            success: false,
            error: {
              code: 'OPERATION_FAILED',
              message: `the app answered something that is not an ABP response: ${shown.slice(0, 200)}`,
              retryable: false,
            },
          };
        }
        return answer;
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        const details = { thrown: e instanceof Error ? e.name : typeof e };
        return {
          success: false,
          error: { code: 'OPERATION_FAILED', message: `the app threw: ${message}`, retryable: false, details },
        };
      }
    },
    name,
    params as Record<string, unknown>,
    options,
  );
  return answer as AbpResponse;
}

/**
 * `abp.cancel(callId)`, then `abp.cancel({callId})`: the public documents name both signatures and a
 * function's arity cannot tell them apart; the form an app does not understand is a no-op for it.
 * Resolves to whether the app has `cancel` at all.
 */
export async function cancelInPage(page: Page, callId: string): Promise<boolean> {
  return page.evaluate(async (id) => {
    const abp = (globalThis as unknown as PageGlobals).abp;
    if (!abp || typeof abp.cancel !== 'function') return false;
    for (const arg of [id, { callId: id }]) {
      try {
        await abp.cancel(arg);
      } catch {
        // the other form may be the one this app takes
      }
    }
    return true;
  }, callId);
}

/** `abp.shutdown({reason})`, given at most `timeoutMs`: a hanging app must not hold up a disconnect. */
export async function shutdownInPage(page: Page, reason: string, timeoutMs: number): Promise<void> {
  const shutdown = page.evaluate(async (why) => {
    const abp = (globalThis as unknown as PageGlobals).abp;
    if (abp && typeof abp.shutdown === 'function') await abp.shutdown({ reason: why });
  }, reason);
  await within(shutdown, timeoutMs, 'abp.shutdown()');
}
