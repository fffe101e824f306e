/**
 * What the page sends the agent, checked before it reaches the MCP side: notifications, progress and
 * elicitation requests arrive from app code and may be malformed; none of that may throw into the page
 * or the proxy.
 */
import type { Page } from 'puppeteer-core';
import type { Logger } from '../../logger.js';
import { EXPOSED } from './runtime.js';
import type { AbpElicitationAnswer, AbpProgress, SessionEvents } from './types.js';
import { isPlainObject } from '../../config/pointer.js';

export const CAPABILITIES_CHANGED = 'notifications/capabilities/list_changed';

/** Passes the notification on; true when it announces a capability change (the caller re-lists). */
export function handleNotification(raw: unknown, events: SessionEvents, logger: Logger): boolean {
  if (!isPlainObject(raw)) {
    logger.debug({ notification: raw }, 'ignored a notification that is not an object');
    return false;
  }
  const method = typeof raw.method === 'string' ? raw.method : undefined;
  logger.debug({ method }, 'app notification');
  try {
    events.onNotification({
      ...(method !== undefined ? { method } : {}),
      ...(raw.params !== undefined ? { params: raw.params } : {}),
    });
  } catch (error) {
    logger.warn({ err: error, method }, 'a notification handler failed');
  }
  return method === CAPABILITIES_CHANGED;
}

export function handleProgress(raw: unknown, events: SessionEvents, logger: Logger): void {
  const operationId = isPlainObject(raw) ? raw.operationId : undefined;
  if (
    !isPlainObject(raw) ||
    (typeof operationId !== 'string' && typeof operationId !== 'number') ||
    typeof raw.progress !== 'number'
  ) {
    logger.debug({ progress: raw }, 'ignored a progress event without operationId and a numeric progress');
    return;
  }
  const progress: AbpProgress = { operationId, progress: raw.progress };
  if (typeof raw.total === 'number') progress.total = raw.total;
  if (typeof raw.percentage === 'number') progress.percentage = raw.percentage;
  if (typeof raw.status === 'string') progress.status = raw.status;
  if (typeof raw.stage === 'string') progress.stage = raw.stage;
  try {
    events.onProgress(progress);
  } catch (error) {
    logger.warn({ err: error }, 'a progress handler failed');
  }
}

/** The MCP side's answer, handed back to the page; a malformed request or a failing handler is an error answer. */
export async function handleElicitation(
  raw: unknown,
  events: SessionEvents,
  logger: Logger,
): Promise<AbpElicitationAnswer> {
  if (!isPlainObject(raw) || typeof raw.method !== 'string') {
    return {
      success: false,
      error: { code: 'INVALID_PARAMS', message: 'an elicitation request needs a method', retryable: false },
    };
  }
  const request = { method: raw.method, ...(isPlainObject(raw.params) ? { params: raw.params } : {}) };
  logger.info({ method: request.method }, 'the app asks the agent (elicitation)');
  try {
    return await events.onElicitation(request);
  } catch (error) {
    logger.warn({ err: error, method: request.method }, 'the elicitation could not be answered');
    return {
      success: false,
      error: { code: 'OPERATION_FAILED', message: (error as Error).message ?? String(error), retryable: false },
    };
  }
}

/**
 * The first event convention: Node functions exposed on the page, there before any of its scripts run (and
 * in every later document). `onCapabilitiesChanged` is called for either kind of change announcement.
 */
export async function exposeHandlers(
  page: Page,
  events: SessionEvents,
  logger: Logger,
  onCapabilitiesChanged: () => void,
): Promise<void> {
  await page.exposeFunction(EXPOSED.notification, (n: unknown) => {
    if (handleNotification(n, events, logger)) onCapabilitiesChanged();
  });
  await page.exposeFunction(EXPOSED.progress, (p: unknown) => handleProgress(p, events, logger));
  await page.exposeFunction(EXPOSED.elicitation, (r: unknown) => handleElicitation(r, events, logger));
  await page.exposeFunction(EXPOSED.capabilitiesChanged, () => onCapabilitiesChanged());
}
