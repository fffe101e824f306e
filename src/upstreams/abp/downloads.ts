/**
 * Browser downloads captured through CDP: `Browser.setDownloadBehavior` sends them to a private temporary
 * folder (each file named by its guid), `downloadWillBegin`/`downloadProgress` say when one starts and
 * ends. Downloads started during a call are read back as InterceptedOutputs and deleted.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, CDPSession, HTTPRequest, Page } from 'puppeteer-core';
import { mimeTypeForFilename, resolveMimeType } from '../../artifacts/mime.js';
import type { Logger } from '../../logger.js';
import type { InterceptedOutput } from './types.js';

/** How long a call that clicked a link may take to show a navigation or download. */
const START_WAIT_MS = 1000;
/** After the navigations a call caused have ended, how long a download announcement may lag behind. */
const QUIET_MS = 100;
const POLL_MS = 25;

interface TrackedDownload {
  guid: string;
  filename: string;
  url: string;
  state: 'inProgress' | 'completed' | 'canceled';
  armed: boolean;
  settled: Promise<void>;
  settle(): void;
}

export class DownloadInterceptor {
  #downloads = new Map<string, TrackedDownload>();
  #navigations = new Set<HTTPRequest>();
  #navigationSeen = false;
  #armed = false;
  #cdp: CDPSession | undefined;
  #dir: string | undefined;

  constructor(
    private readonly browser: Browser,
    private readonly page: Page,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.#dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-offload-abp-downloads-'));
    this.page.on('request', this.#onRequest);
    this.page.on('requestfinished', this.#onRequestDone);
    this.page.on('requestfailed', this.#onRequestDone);
    this.#cdp = await this.browser.target().createCDPSession();
    this.#cdp.on('Browser.downloadWillBegin', this.#onBegin);
    this.#cdp.on('Browser.downloadProgress', this.#onProgress);
    await this.#cdp.send('Browser.setDownloadBehavior', {
      behavior: 'allowAndName',
      downloadPath: this.#dir,
      eventsEnabled: true,
    });
  }

  arm(): void {
    this.#armed = true;
    this.#navigationSeen = false;
    this.#navigations.clear();
    for (const download of this.#downloads.values()) download.armed = false;
  }

  /**
   * The downloads the call started, finished within the download timeout. `hinted` (the page saw a link
   * clicked) or a navigation during the call means a download may still be on its way: it is waited for.
   */
  async collect(hinted: boolean): Promise<InterceptedOutput[]> {
    if (hinted || this.#navigationSeen) await this.#awaitStart();
    this.#armed = false;
    const mine = [...this.#downloads.values()].filter((d) => d.armed);
    if (mine.length === 0) return [];
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.timeoutMs)));
    await Promise.race([Promise.all(mine.map((d) => d.settled)), deadline]);
    clearTimeout(timer);
    const outputs: InterceptedOutput[] = [];
    for (const download of mine) {
      this.#downloads.delete(download.guid);
      const file = path.join(this.#dir!, download.guid);
      if (download.state === 'completed') {
        try {
          const bytes = await readFile(file);
          const mimeType = await resolveMimeType(mimeTypeForFilename(download.filename), bytes);
          outputs.push({ kind: 'download', bytes, mimeType, filename: download.filename });
        } catch (error) {
          this.logger.warn({ err: error, url: download.url }, 'a finished download could not be read');
        }
      } else if (download.state === 'inProgress') {
        this.logger.warn(
          { url: download.url, timeoutMs: this.timeoutMs },
          'a download did not finish in time and was cancelled',
        );
        await this.#cdp?.send('Browser.cancelDownload', { guid: download.guid }).catch(() => undefined);
      }
      await rm(file, { force: true }).catch(() => undefined);
    }
    return outputs;
  }

  /** Until a download began, or the call's navigations ended without one, or START_WAIT_MS passed. */
  async #awaitStart(): Promise<void> {
    const deadline = Date.now() + START_WAIT_MS;
    let quietSince: number | undefined;
    while (Date.now() < deadline && !this.page.isClosed()) {
      if ([...this.#downloads.values()].some((d) => d.armed)) return;
      if (this.#navigationSeen && this.#navigations.size === 0) {
        quietSince ??= Date.now();
        if (Date.now() - quietSince >= QUIET_MS) return;
      } else {
        quietSince = undefined;
      }
      await sleep(POLL_MS);
    }
  }

  /** Waiting calls released (the page is gone). */
  abandon(): void {
    for (const download of this.#downloads.values()) download.settle();
  }

  async stop(): Promise<void> {
    this.page.off('request', this.#onRequest);
    this.page.off('requestfinished', this.#onRequestDone);
    this.page.off('requestfailed', this.#onRequestDone);
    this.abandon();
    this.#downloads.clear();
    await this.#cdp?.detach().catch(() => undefined);
    if (this.#dir) await rm(this.#dir, { recursive: true, force: true }).catch(() => undefined);
  }

  #onRequest = (request: HTTPRequest): void => {
    if (!this.#armed || !request.isNavigationRequest()) return;
    this.#navigationSeen = true;
    this.#navigations.add(request);
  };

  #onRequestDone = (request: HTTPRequest): void => {
    this.#navigations.delete(request);
  };

  #onBegin = (event: { guid: string; url: string; suggestedFilename: string }): void => {
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const filename = path.basename(event.suggestedFilename || 'download');
    this.#downloads.set(event.guid, {
      guid: event.guid,
      filename,
      url: event.url,
      state: 'inProgress',
      armed: this.#armed,
      settled,
      settle,
    });
    this.logger.info({ url: event.url, filename }, 'browser download intercepted');
  };

  #onProgress = (event: { guid: string; state: 'inProgress' | 'completed' | 'canceled' }): void => {
    const download = this.#downloads.get(event.guid);
    if (!download || event.state === 'inProgress') return;
    download.state = event.state;
    download.settle();
  };
}
