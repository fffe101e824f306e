/**
 * The backend wired to the real browser side: AbpBrowserSession (puppeteer-core) behind the MCP
 * server. The server itself takes any SessionFactory, so it compiles without the browser side.
 */
import type { Logger } from '../../logger.js';
import type { AbpOptions } from '../../config/abp.js';
import { createAbpServer, type AbpBackend } from './server.js';
import { AbpBrowserSession } from './session.js';

export function createAbpBackend(options: AbpOptions, log: Logger): AbpBackend {
  const abpLog = log.child({ component: 'abp' }, options.logLevel ? { level: options.logLevel } : {});
  return createAbpServer(
    options,
    abpLog,
    (browserOptions, events, sessionLog) => new AbpBrowserSession(browserOptions, events, sessionLog),
  );
}
