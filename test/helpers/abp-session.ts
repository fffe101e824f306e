// AbpBrowserSession as the browser tests use it: options pointing at the local fixture server, and events
// that record what the page sent.
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/logger.js';
import { AbpBrowserSession } from '../../src/upstreams/abp/session.js';
import type {
  AbpCapability,
  AbpElicitation,
  AbpElicitationAnswer,
  AbpProgress,
  BrowserOptions,
  SessionEvents,
} from '../../src/upstreams/abp/types.js';

export interface RecordedEvents extends SessionEvents {
  progress: AbpProgress[];
  notifications: Array<{ method?: string; params?: unknown }>;
  elicitations: AbpElicitation[];
  capabilityChanges: AbpCapability[][];
  pageLost: string[];
  /** What the next elicitations are answered with (default: confirmed, value "agent"). */
  answer: (request: AbpElicitation) => Promise<AbpElicitationAnswer>;
}

export function recordingEvents(): RecordedEvents {
  const events: RecordedEvents = {
    progress: [],
    notifications: [],
    elicitations: [],
    capabilityChanges: [],
    pageLost: [],
    answer: async () => ({ success: true, data: { confirmed: true, value: 'agent' } }),
    onProgress: (p) => void events.progress.push(p),
    onNotification: (n) => void events.notifications.push(n),
    onElicitation: (request) => {
      events.elicitations.push(request);
      return events.answer(request);
    },
    onCapabilitiesChanged: (c) => void events.capabilityChanges.push(c),
    onPageLost: (reason) => void events.pageLost.push(reason),
  };
  return events;
}

export function browserOptions(overrides: Partial<BrowserOptions> = {}): BrowserOptions {
  return {
    executablePath: process.env.CHROME_PATH || undefined,
    headless: true,
    browserTimeoutMs: 30_000,
    downloadTimeoutMs: 10_000,
    abpWaitMs: 10_000,
    extensionStoreUrl: 'http://127.0.0.1:9/crx/{id}',
    extensionCacheDir: path.join(os.tmpdir(), `mcp-offload-abp-test-cache-${process.pid}`),
    agent: { name: 'mcp-offload-tests', version: '0.0.0' },
    ...overrides,
  };
}

export function newSession(
  overrides: Partial<BrowserOptions> = {},
  events: RecordedEvents = recordingEvents(),
): { session: AbpBrowserSession; events: RecordedEvents } {
  return { session: new AbpBrowserSession(browserOptions(overrides), events, silentLogger), events };
}

let calls = 0;
/** Call options with a fresh callId. */
export function callOptions(extra: { timeoutMs?: number; progressToken?: string | number; signal?: AbortSignal } = {}) {
  calls++;
  return { timeoutMs: 20_000, callId: `test-call-${calls}`, ...extra };
}
