/**
 * The browser event guard: native browser UI an agent cannot click (dialogs, print, downloads, permission
 * prompts) is answered or captured here, and a page that crashes or closes is noticed. Listeners live for
 * the whole connection; `armForCall()` and `collect()` bracket each capability call.
 */
import type { Browser, Dialog, Page } from 'puppeteer-core';
import type { Logger } from '../../logger.js';
import { DownloadInterceptor } from './downloads.js';
import { within } from './runtime.js';
import type { HandledDialog, InterceptedOutput } from './types.js';

interface PageFlags {
  print: () => void;
  __abpPrintCalled?: boolean;
  __abpDownloadHint?: boolean;
}

/** The little of the DOM the page script touches (this project compiles without DOM types). */
interface Anchor {
  href: string;
  isConnected: boolean;
  hasAttribute(name: string): boolean;
}

interface PageWindow extends PageFlags {
  __abpLinksWatched?: boolean;
  location: { href: string };
  HTMLAnchorElement?: { prototype: { click(this: Anchor, ...args: unknown[]): unknown } };
  addEventListener(type: 'click', listener: (event: { target: unknown; defaultPrevented: boolean }) => void): void;
}

/**
 * Runs in the page, first thing in every document. `print` is replaced, so apps that keep a reference to it
 * get ours; link clicks that may start a download are noted, because the browser announces a download only
 * after the call that clicked has returned.
 */
function instrumentPage(): void {
  const w = globalThis as unknown as PageWindow;
  const print = function print(): void {
    w.__abpPrintCalled = true;
  };
  try {
    Object.defineProperty(w, 'print', { value: print, writable: true, configurable: true });
  } catch {
    w.print = print;
  }
  if (w.__abpLinksWatched || !w.HTMLAnchorElement) return;
  w.__abpLinksWatched = true;
  const note = (anchor: Anchor): void => {
    const sameDocument = String(anchor.href).split('#')[0] === String(w.location.href).split('#')[0];
    if (anchor.hasAttribute('download') || !sameDocument) w.__abpDownloadHint = true;
  };
  // Detached anchors (the usual `a.download = ...; a.click()`) never reach a window listener.
  const click = w.HTMLAnchorElement.prototype.click;
  w.HTMLAnchorElement.prototype.click = function (this: Anchor, ...args: unknown[]) {
    if (!this.isConnected) note(this);
    return click.apply(this, args);
  };
  // Bubbling, so a click a router cancelled (preventDefault) is not taken for a download.
  w.addEventListener('click', (event) => {
    const target = event.target as { closest?: (selector: string) => Anchor | null } | null;
    const anchor = target && typeof target.closest === 'function' ? target.closest('a[href]') : null;
    if (anchor && !event.defaultPrevented) note(anchor);
  });
}

/** Detaching is part of a disconnect, which must not wait long for a page that does not answer. */
const DETACH_TIMEOUT_MS = 2000;

export interface GuardOptions {
  downloadTimeoutMs: number;
  /** Deadline of the guard's own page operations (the browser has no protocol timeout). */
  evaluateTimeoutMs: number;
  onPageLost(reason: string): void;
}

export class BrowserEventGuard {
  #dialogs: HandledDialog[] = [];
  #downloads: DownloadInterceptor;
  #lostReason: string | undefined;
  #pageScript: string | undefined;
  #detached = false;

  constructor(
    private readonly browser: Browser,
    private readonly page: Page,
    private readonly options: GuardOptions,
    private readonly logger: Logger,
  ) {
    this.#downloads = new DownloadInterceptor(browser, page, options.downloadTimeoutMs, logger);
  }

  /** Why the page is unusable, once it is. */
  get lostReason(): string | undefined {
    return this.#lostReason;
  }

  /** Before navigation, so dialogs during load and apps that capture `print` at load are covered too. */
  async attach(): Promise<void> {
    this.page.on('dialog', this.#onDialog);
    this.page.on('error', this.#onCrash);
    this.page.on('close', this.#onClose);
    this.browser.on('disconnected', this.#onDisconnected);
    this.#pageScript = (await this.page.evaluateOnNewDocument(instrumentPage)).identifier;
    await within(this.page.evaluate(instrumentPage), this.options.evaluateTimeoutMs, 'instrumenting the page');
    await this.#downloads.start();
  }

  /** After navigation: `print` replaced in the document already loaded, notifications allowed for its origin. */
  async pageReady(): Promise<void> {
    await within(this.page.evaluate(instrumentPage), this.options.evaluateTimeoutMs, 'instrumenting the page');
    const origin = new URL(this.page.url()).origin;
    if (origin === 'null') return;
    try {
      await this.browser.defaultBrowserContext().overridePermissions(origin, ['notifications']);
    } catch (error) {
      this.logger.debug({ err: error, origin }, 'could not grant the notification permission');
    }
  }

  async armForCall(): Promise<void> {
    this.#dialogs = [];
    this.#downloads.arm();
    if (this.#lostReason) return;
    const reset = this.page.evaluate(() => {
      const w = globalThis as unknown as PageFlags;
      w.__abpPrintCalled = false;
      w.__abpDownloadHint = false;
    });
    await within(reset, this.options.evaluateTimeoutMs, 'preparing the page for the call');
  }

  /** What the call caused: a print turned into a PDF, finished downloads, and the dialogs answered. */
  async collect(): Promise<{ outputs: InterceptedOutput[]; dialogs: HandledDialog[] }> {
    const outputs: InterceptedOutput[] = [];
    let flags = { printed: false, linkClicked: false };
    if (!this.#lostReason) {
      const read = this.page.evaluate(() => {
        const w = globalThis as unknown as PageFlags;
        const seen = { printed: w.__abpPrintCalled === true, linkClicked: w.__abpDownloadHint === true };
        w.__abpPrintCalled = false;
        w.__abpDownloadHint = false;
        return seen;
      });
      flags = await within(read, this.options.evaluateTimeoutMs, 'reading what the call did').catch(
        (error: unknown) => {
          this.logger.warn({ err: error }, 'could not check the page for print() and link clicks');
          return flags;
        },
      );
      if (flags.printed) {
        try {
          const pdf = await this.page.pdf({
            format: 'A4',
            printBackground: true,
            timeout: this.options.evaluateTimeoutMs,
          });
          outputs.push({ kind: 'print', bytes: Buffer.from(pdf), mimeType: 'application/pdf', filename: 'print.pdf' });
          this.logger.info('window.print() was called: the page was saved as a PDF');
        } catch (error) {
          this.logger.error({ err: error }, 'window.print() was called but the page could not be saved as a PDF');
        }
      }
    }
    outputs.push(...(await this.#downloads.collect(flags.linkClicked)));
    return { outputs, dialogs: [...this.#dialogs] };
  }

  /** Listeners and the CDP session removed, temporary downloads deleted. Never throws. */
  async detach(): Promise<void> {
    if (this.#detached) return;
    this.#detached = true;
    this.page.off('dialog', this.#onDialog);
    this.page.off('error', this.#onCrash);
    this.page.off('close', this.#onClose);
    this.browser.off('disconnected', this.#onDisconnected);
    if (this.#pageScript && !this.#lostReason) {
      const remove = this.page.removeScriptToEvaluateOnNewDocument(this.#pageScript);
      await within(
        remove,
        Math.min(this.options.evaluateTimeoutMs, DETACH_TIMEOUT_MS),
        'removing the page script',
      ).catch(() => undefined);
    }
    await this.#downloads.stop();
  }

  #onDialog = async (dialog: Dialog): Promise<void> => {
    const type = dialog.type() as HandledDialog['type'];
    // confirm and beforeunload are accepted: the non-destructive answer that lets the app go on.
    const accept = type === 'confirm' || type === 'beforeunload';
    const handled: HandledDialog = { type, message: dialog.message(), action: accept ? 'accepted' : 'dismissed' };
    this.#dialogs.push(handled);
    this.logger.info(handled, 'browser dialog handled');
    try {
      if (accept) await dialog.accept();
      else await dialog.dismiss();
    } catch (error) {
      this.logger.warn({ err: error, type }, 'could not answer a browser dialog');
    }
  };

  #lost(reason: string): void {
    if (this.#lostReason) return;
    this.#lostReason = reason;
    this.logger.warn({ reason }, 'the ABP page is gone');
    this.#downloads.abandon();
    this.options.onPageLost(reason);
  }

  #onCrash = (error: Error): void => this.#lost(`the page crashed (${error.message})`);
  #onClose = (): void => this.#lost('the page was closed');
  #onDisconnected = (): void => this.#lost('the browser exited or was disconnected');
}
