/**
 * One browser connected to one ABP app: the connect sequences of the seed (web app and extension, every
 * step rolled back on failure), capability calls with the event guard around them, and the page's events
 * (both of the protocol's conventions) passed on to the MCP side.
 */
import { trustAbpAppOrigin } from '../../pipeline/detect/abp-origins.js';
import type { Page } from 'puppeteer-core';
import type { Logger } from '../../logger.js';
import { launchBrowser, navigate, renderHtmlToPdf, type LaunchedBrowser } from './browser.js';
import { callWithDeadline } from './call-deadline.js';
import {
  hasBinaryData,
  mergeCapabilities,
  normalizeCapabilities,
  runtimeApp,
  synthesizeManifest,
} from './capabilities.js';
import {
  discoverExtensionId,
  extensionAppInfo,
  extensionDirFor,
  extensionPageUrl,
  unpackedExtensionId,
} from './extension.js';
import { BrowserEventGuard } from './guard.js';
import { discoverManifest, type DiscoveredManifest } from './manifest.js';
import {
  EXPOSED,
  initialize,
  isInitialized,
  listCapabilities,
  markInitialized,
  registerCallbacks,
  PageBusyError,
  shutdownInPage,
  waitForAbp,
  within,
  type InitializeResult,
} from './runtime.js';
import { exposeHandlers } from './session-events.js';
import {
  PageLostError,
  type AbpCapability,
  type AbpResponse,
  type BrowserOptions,
  type BrowserSession,
  type CallOptions,
  type CallOutcome,
  type ConnectTarget,
  type ConnectionInfo,
  type SessionEvents,
} from './types.js';
import { isPlainObject } from '../../config/pointer.js';

export { hasBinaryData };

const SHUTDOWN_TIMEOUT_MS = 2000;
const FEATURES = { notifications: true, progress: true, elicitation: true };

export class AbpBrowserSession implements BrowserSession {
  #launched: LaunchedBrowser | undefined;
  /** Ends the trust in the app's origin for downloads (pipeline/detect/abp-origins.ts). */
  #releaseOrigin: (() => void) | undefined;
  #guard: BrowserEventGuard | undefined;
  #info: ConnectionInfo | undefined;
  #busy = false;
  /** The fetched manifest's capabilities (none for extensions, whose list is the runtime's alone). */
  #manifestCapabilities: AbpCapability[] = [];
  #refreshing: Promise<void> = Promise.resolve();
  #calls: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly options: BrowserOptions,
    private readonly events: SessionEvents,
    private readonly logger: Logger,
  ) {}

  get connected(): boolean {
    return this.#info !== undefined;
  }

  get info(): ConnectionInfo | undefined {
    return this.#info;
  }

  async connect(target: ConnectTarget): Promise<ConnectionInfo> {
    if (this.#launched || this.#busy) throw new Error('This browser session is already connected; disconnect it first');
    this.#busy = true;
    try {
      this.#info = await this.#connect(target);
      this.logger.info(
        { app: this.#info.app.id, sessionId: this.#info.sessionId, pageUrl: this.#info.pageUrl },
        'ABP session connected',
      );
      return this.#info;
    } catch (error) {
      await this.#teardown();
      throw error;
    } finally {
      this.#busy = false;
    }
  }

  async #connect(target: ConnectTarget): Promise<ConnectionInfo> {
    const o = this.options;
    let discovered: DiscoveredManifest | undefined;
    let extensionDir: string | undefined;
    if ('url' in target) {
      this.logger.info({ url: target.url }, 'discovering the ABP manifest');
      discovered = await discoverManifest(target.url);
      this.logger.info(
        { manifestUrl: discovered.manifestUrl, capabilities: discovered.manifest.capabilities.length },
        'manifest loaded',
      );
    } else {
      extensionDir = await extensionDirFor(target, o, this.logger);
    }
    const launch = {
      executablePath: o.executablePath,
      headless: o.headless,
      timeoutMs: o.browserTimeoutMs,
      userDataDir: o.userDataDir,
      extensionDir,
    };
    const launched = (this.#launched = await launchBrowser(launch, this.logger));
    const { browser, page } = launched;
    let extensionId: string | undefined;
    let pageUrl: string;
    if ('url' in target) {
      pageUrl = target.url;
    } else {
      extensionId = await discoverExtensionId(browser, o.browserTimeoutMs, await unpackedExtensionId(extensionDir!));
      pageUrl = extensionPageUrl(extensionId, target.abpPage);
    }

    const guard = (this.#guard = new BrowserEventGuard(
      browser,
      page,
      {
        downloadTimeoutMs: o.downloadTimeoutMs,
        evaluateTimeoutMs: o.browserTimeoutMs,
        onPageLost: (r) => this.#pageLost(r),
      },
      this.logger,
    ));
    await guard.attach();
    await exposeHandlers(page, this.events, this.logger, () => this.#scheduleRefresh());
    this.logger.info({ url: pageUrl }, 'navigating');
    await navigate(page, pageUrl, o.browserTimeoutMs);
    // The app's files come as BinaryDataReferences on its own server, often loopback: its downloads may reach it.
    const appOrigin = new URL(page.url()).origin;
    if (/^https?:/.test(appOrigin)) this.#releaseOrigin = trustAbpAppOrigin(appOrigin);
    await waitForAbp(page, o.abpWaitMs);
    await guard.pageReady();
    const init = await this.#initialize(page);
    const runtime = normalizeCapabilities(
      await within(listCapabilities(page), o.browserTimeoutMs, 'listCapabilities()'),
      this.logger,
    );

    const manifest = discovered
      ? discovered.manifest
      : synthesizeManifest(init, runtime, await extensionAppInfo(extensionDir!, extensionId!));
    this.#manifestCapabilities = discovered ? manifest.capabilities : [];
    return {
      pageUrl: page.url(),
      sessionId: init.sessionId,
      app: runtimeApp(init, manifest.app),
      manifest,
      capabilities: mergeCapabilities(this.#manifestCapabilities, runtime),
      features: isPlainObject(init.features) ? init.features : {},
      ...(extensionId ? { extensionId } : {}),
    };
  }

  /** `initialize`, then the second event convention: callbacks registered with `abp.onX` where the app has them. */
  async #initialize(page: Page): Promise<InitializeResult> {
    const deadline = this.options.browserTimeoutMs;
    const params = { agent: this.options.agent, protocolVersion: '0.1', features: FEATURES };
    const init = await within(initialize(page, params), deadline, 'initialize()');
    const registered = await within(registerCallbacks(page, EXPOSED), deadline, 'registering the event callbacks');
    await within(markInitialized(page), deadline, 'marking the page initialized');
    this.logger.debug({ registered, sessionId: init.sessionId }, 'ABP session initialized');
    return init;
  }

  /** An app that reloaded its page has a new, uninitialized window.abp: it is initialized again before the call. */
  async #reinitializeAfterReload(page: Page): Promise<void> {
    if (await within(isInitialized(page), this.options.browserTimeoutMs, 'checking the page')) return;
    this.logger.warn('the app reloaded its page: waiting for window.abp and initializing again');
    await waitForAbp(page, this.options.abpWaitMs);
    const init = await this.#initialize(page);
    if (this.#info) this.#info = { ...this.#info, sessionId: init.sessionId };
    this.#scheduleRefresh();
  }

  /** Resolves once the capability re-listings already asked for (by the app's announcements) are done. */
  async settled(): Promise<void> {
    await this.#refreshing;
  }

  #scheduleRefresh(): void {
    this.#refreshing = this.#refreshing
      .then(() => this.#refreshCapabilities())
      .catch((error: unknown) => this.logger.warn({ err: error }, 'could not re-list the capabilities after a change'));
  }

  /** Re-lists after the app announced a change; the MCP side hears of it only when the list really differs. */
  async #refreshCapabilities(): Promise<void> {
    const info = this.#info;
    if (!info || !this.#launched || this.#guard?.lostReason) return;
    const listed = await within(
      listCapabilities(this.#launched.page),
      this.options.browserTimeoutMs,
      'listCapabilities()',
    );
    const runtime = normalizeCapabilities(listed, this.logger);
    const capabilities = mergeCapabilities(this.#manifestCapabilities, runtime);
    if (this.#info !== info || JSON.stringify(capabilities) === JSON.stringify(info.capabilities)) return;
    this.#info = { ...info, capabilities };
    this.logger.info({ count: capabilities.length }, 'the app changed its capabilities');
    this.events.onCapabilitiesChanged(capabilities);
  }

  #pageLost(reason: string): void {
    if (this.#info) this.events.onPageLost(reason);
  }

  #lostError(reason: string): PageLostError {
    return new PageLostError(`The ABP app's page is gone: ${reason}. Connect again to go on.`);
  }

  /**
   * One call at a time: prints, downloads and dialogs happen on the one page and carry no call id, so
   * only serial calls can each be given their own side effects.
   */
  call(capability: string, params: unknown, options: CallOptions): Promise<CallOutcome> {
    const run = this.#calls.then(() => this.#call(capability, params, options));
    this.#calls = run.catch(() => undefined);
    return run;
  }

  async #call(capability: string, params: unknown, options: CallOptions): Promise<CallOutcome> {
    const launched = this.#launched;
    const guard = this.#guard;
    if (!this.#info || !launched || !guard) throw new Error('Not connected to an ABP app: connect first');
    const lost = (): string | undefined =>
      guard.lostReason ??
      (launched.page.isClosed()
        ? 'the page was closed'
        : !launched.browser.connected
          ? 'the browser went away'
          : undefined);
    if (lost()) throw this.#lostError(lost()!);
    if (options.signal?.aborted) {
      return {
        response: {
          success: false,
          cancelled: true,
          error: { code: 'CANCELLED', message: `${capability} was cancelled before it started`, retryable: false },
        },
        outputs: [],
        dialogs: [],
      };
    }
    const started = Date.now();
    let response: AbpResponse;
    try {
      await this.#reinitializeAfterReload(launched.page);
      await guard.armForCall();
      response = await callWithDeadline(launched.page, capability, params, options, this.logger);
    } catch (error) {
      if (lost()) throw this.#lostError(lost()!);
      response = {
        success: false,
        error: {
          code: 'OPERATION_FAILED',
          message: `the call failed in the browser: ${(error as Error).message}`,
          retryable: false,
        },
      };
      // A page that did not even answer the preparations has nothing to collect, and would only make us wait again.
      if (error instanceof PageBusyError) return { response, outputs: [], dialogs: [] };
    }
    const { outputs, dialogs } = await guard.collect().catch((error: unknown) => {
      this.logger.error({ err: error, capability }, 'could not collect what the call caused in the browser');
      return { outputs: [], dialogs: [] };
    });
    const level = response.success ? 'info' : 'warn';
    this.logger[level](
      { capability, duration: Date.now() - started, code: response.error?.code, outputs: outputs.length },
      'capability call finished',
    );
    return { response, outputs, dialogs };
  }

  async renderToPdf(html: string, options: Record<string, unknown> = {}): Promise<Buffer> {
    const launched = this.#launched;
    if (!this.#info || !launched)
      throw new Error('Not connected to an ABP app: connect first (the PDF is rendered by its browser)');
    return renderHtmlToPdf(launched.browser, html, options, this.options.browserTimeoutMs, this.logger);
  }

  async disconnect(): Promise<void> {
    const launched = this.#launched;
    const guard = this.#guard;
    this.#info = undefined;
    if (!launched) return;
    if (guard && !guard.lostReason && !launched.page.isClosed()) {
      await shutdownInPage(launched.page, 'disconnect', SHUTDOWN_TIMEOUT_MS).catch((error: unknown) =>
        this.logger.warn({ err: error }, 'abp.shutdown() failed; closing the browser anyway'),
      );
    }
    await this.#teardown();
    this.logger.info('ABP session disconnected');
  }

  /** Guard detached, browser closed, temporary profile removed; safe at any point of a connect. */
  async #teardown(): Promise<void> {
    const launched = this.#launched;
    const guard = this.#guard;
    this.#launched = undefined;
    this.#guard = undefined;
    this.#info = undefined;
    this.#manifestCapabilities = [];
    this.#releaseOrigin?.();
    this.#releaseOrigin = undefined;
    await guard
      ?.detach()
      .catch((error: unknown) => this.logger.warn({ err: error }, 'detaching the browser event guard failed'));
    await launched?.close();
  }
}
