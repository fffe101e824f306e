/**
 * Finding and starting Chromium for the ABP backend, and navigating its page. Puppeteer-core brings no
 * browser of its own, so the executable is looked up here, in an order a user can steer.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type Page, type PDFOptions } from 'puppeteer-core';
import type { Logger } from '../../logger.js';

/** Well-known places, per platform, in the order they are tried. */
export function wellKnownBrowserPaths(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  if (platform === 'darwin') {
    return [
      '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
      '/Applications/Chromium.app/Contents/MacOS/Chromium',
      '/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary',
    ];
  }
  if (platform === 'win32') {
    const roots = [env.PROGRAMFILES ?? 'C:\\Program Files', env['PROGRAMFILES(X86)'] ?? 'C:\\Program Files (x86)'];
    if (env.LOCALAPPDATA) roots.push(env.LOCALAPPDATA);
    return roots.map((root) => path.win32.join(root, 'Google', 'Chrome', 'Application', 'chrome.exe'));
  }
  return [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/snap/bin/chromium',
  ];
}

export interface ResolveExecutableOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  exists?: (file: string) => boolean;
}

/**
 * The browser to launch: the explicit option, then $CHROME_PATH, then the well-known locations. A path
 * the user named that does not exist is an error rather than a silent fallback to some other browser.
 */
export function resolveExecutable(explicit: string | undefined, options: ResolveExecutableOptions = {}): string {
  const env = options.env ?? process.env;
  const exists = options.exists ?? existsSync;
  if (explicit) {
    if (exists(explicit)) return explicit;
    throw new Error(`The configured browser executable ${explicit} does not exist.`);
  }
  const fromEnv = env.CHROME_PATH;
  if (fromEnv) {
    if (exists(fromEnv)) return fromEnv;
    throw new Error(`CHROME_PATH is set to ${fromEnv}, which does not exist.`);
  }
  const candidates = wellKnownBrowserPaths(options.platform, env);
  const found = candidates.find((candidate) => exists(candidate));
  if (found) return found;
  throw new Error(
    'No Chrome or Chromium executable found. Looked at: the executablePath setting (not set), ' +
      `$CHROME_PATH (not set), ${candidates.join(', ')}. ` +
      'Install Chromium (e.g. `apt-get install chromium`) or name the executable in the configuration or in CHROME_PATH.',
  );
}

/** The bridge's flags (seed) and the ones a container or CI machine needs (no sandbox, no GPU, no phoning home). */
export const BROWSER_FLAGS = [
  '--no-first-run',
  '--disable-default-apps',
  '--disable-popup-blocking',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface LaunchOptions {
  executablePath?: string;
  headless: boolean;
  timeoutMs: number;
  /** Persistent profile; a fresh temporary one (removed by `close`) when absent. */
  userDataDir?: string;
  /** An unpacked extension directory to load. */
  extensionDir?: string;
}

export interface LaunchedBrowser {
  browser: Browser;
  page: Page;
  /** The profile in use: the persistent one asked for, or the temporary one `close` removes. */
  profileDir: string;
  /** Closes the browser (killing it when it does not go) and removes a temporary profile. Never throws. */
  close(): Promise<void>;
}

const TEMP_PROFILE_PREFIX = 'mcp-offload-abp-profile-';
const CLOSE_GRACE_MS = 5000;

export async function launchBrowser(options: LaunchOptions, logger: Logger): Promise<LaunchedBrowser> {
  const executablePath = resolveExecutable(options.executablePath);
  const tempProfile = options.userDataDir ? undefined : await mkdtemp(path.join(os.tmpdir(), TEMP_PROFILE_PREFIX));
  const removeTempProfile = async (): Promise<void> => {
    if (!tempProfile) return;
    // Chromium may still be flushing files for a moment after exit.
    await rm(tempProfile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch((error: unknown) =>
      logger.warn({ err: error, dir: tempProfile }, 'could not remove the temporary browser profile'),
    );
  };
  const args = [...BROWSER_FLAGS];
  if (options.extensionDir) {
    args.push(`--load-extension=${options.extensionDir}`, `--disable-extensions-except=${options.extensionDir}`);
  }
  logger.info({ executablePath, headless: options.headless, timeout: options.timeoutMs }, 'launching browser');
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath,
      headless: options.headless,
      args,
      userDataDir: options.userDataDir ?? tempProfile,
      timeout: options.timeoutMs,
      // None: a capability call may run as long as its own timeout says; shorter operations get deadlines
      // of their own (see runtime.ts `within`).
      protocolTimeout: 0,
      // puppeteer adds --disable-extensions by default, which would defeat --load-extension.
      ignoreDefaultArgs: options.extensionDir ? ['--disable-extensions'] : undefined,
      defaultViewport: { width: 1280, height: 900 },
    });
  } catch (error) {
    await removeTempProfile();
    throw new Error(`Could not launch the browser ${executablePath}: ${(error as Error).message}`, { cause: error });
  }

  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    const child = browser.process();
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), CLOSE_GRACE_MS)));
    const outcome = await Promise.race([browser.close().then(() => 'closed' as const), gaveUp]).catch(
      (error: unknown) => {
        logger.warn({ err: error }, 'closing the browser failed');
        return 'failed' as const;
      },
    );
    clearTimeout(timer);
    if (outcome !== 'closed' && child && child.exitCode === null) {
      child.kill('SIGKILL');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    }
    await removeTempProfile();
  };

  try {
    const [first] = await browser.pages();
    const page = first ?? (await browser.newPage());
    page.setDefaultTimeout(options.timeoutMs);
    return { browser, page, profileDir: options.userDataDir ?? tempProfile!, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Navigation as the seed does it: `networkidle2`, within the browser timeout, with a message naming the
 * URL. The about:blank entry before the app is then dropped from the history, so the page is what a tab
 * opened at the app's URL would be (where, for one, the app's own `window.close()` works).
 */
export async function navigate(page: Page, url: string, timeoutMs: number): Promise<void> {
  try {
    const response = await page.goto(url, { waitUntil: 'networkidle2', timeout: timeoutMs });
    if (response && response.status() >= 400) {
      throw new Error(`the server answered HTTP ${response.status()}`);
    }
  } catch (error) {
    throw new Error(`Could not open ${url} in the browser: ${(error as Error).message}`, { cause: error });
  }
  const cdp = await page.createCDPSession();
  try {
    await cdp.send('Page.resetNavigationHistory');
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}

/**
 * `page.pdf` of the HTML in a fresh page of the browser (A4, backgrounds unless told otherwise); the page is closed
 * after.
 */
export async function renderHtmlToPdf(
  browser: Browser,
  html: string,
  options: Record<string, unknown>,
  timeoutMs: number,
  logger: Logger,
): Promise<Buffer> {
  // `path` would make the browser write a file wherever the caller says.
  const { path: _path, ...pdfOptions } = options;
  const page = await browser.newPage();
  try {
    page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
    await page.setContent(html, { waitUntil: 'load', timeout: timeoutMs });
    const pdf = await page.pdf({
      format: 'A4',
      printBackground: true,
      ...(pdfOptions as PDFOptions),
      timeout: timeoutMs,
    });
    return Buffer.from(pdf);
  } finally {
    await page.close().catch((error: unknown) => logger.debug({ err: error }, 'could not close the PDF page'));
  }
}
