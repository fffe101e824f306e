/**
 * Chrome extensions as ABP apps: where the unpacked extension is, which id the browser gave it, and the
 * app description to fall back on when the runtime gives none.
 */
import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';
import type { Logger } from '../../logger.js';
import { ensureExtension } from './extension-store.js';
import type { AbpAppInfo, BrowserOptions, ConnectTarget } from './types.js';

export const DEFAULT_ABP_PAGE = 'abp-app.html';
const POLL_MS = 200;
const EXTENSION_URL = /^chrome-extension:\/\/([a-p]{32})\//;

/** The unpacked extension directory for an extension target (downloaded and cached for `extensionId`). */
export async function extensionDirFor(
  target: Exclude<ConnectTarget, { url: string }>,
  options: BrowserOptions,
  logger: Logger,
): Promise<string> {
  if ('extensionId' in target)
    return ensureExtension(target.extensionId, options.extensionStoreUrl, options.extensionCacheDir, logger);
  const dir = path.resolve(target.extensionPath);
  if (!existsSync(path.join(dir, 'manifest.json'))) {
    throw new Error(`No unpacked extension at ${dir}: there is no manifest.json in it`);
  }
  return dir;
}

/**
 * The id Chrome gives an unpacked extension: from the manifest's `key` when it has one, else from its
 * absolute path; the SHA-256's first 32 hex digits written with the letters a-p.
 */
export async function unpackedExtensionId(dir: string): Promise<string> {
  let source: Buffer = Buffer.from(realpathSync(dir));
  try {
    const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as { key?: unknown };
    if (typeof manifest.key === 'string' && manifest.key !== '') source = Buffer.from(manifest.key, 'base64');
  } catch {
    // an unreadable manifest.json fails later, when Chrome loads it
  }
  const hex = createHash('sha256').update(source).digest('hex').slice(0, 32);
  return [...hex].map((digit) => String.fromCharCode(97 + parseInt(digit, 16))).join('');
}

/**
 * Polls the browser's targets every 200 ms until the extension shows up at chrome-extension://<id>/ (its
 * service worker or a page). The id computed from the directory is preferred, so a component extension of
 * the browser is never taken for it; if that id never appears, a single other extension id is accepted
 * (Chrome's id rules differ on some platforms).
 */
export async function discoverExtensionId(browser: Browser, timeoutMs: number, expectedId?: string): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const others = new Set<string>();
  for (;;) {
    for (const target of browser.targets()) {
      const id = EXTENSION_URL.exec(target.url())?.[1];
      if (id && (id === expectedId || !expectedId)) return id;
      if (id) others.add(id);
    }
    if (Date.now() >= deadline) {
      if (others.size === 1) return [...others][0]!;
      throw new Error(
        `The extension did not show up in the browser within ${timeoutMs} ms (no chrome-extension://${expectedId ?? '<id>'}/ target). ` +
          'Does it declare a background service worker?',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** `chrome-extension://<id>/<page>`; a page that would leave the extension is refused. */
export function extensionPageUrl(id: string, abpPage: string | undefined): string {
  const base = `chrome-extension://${id}/`;
  const page = abpPage ?? DEFAULT_ABP_PAGE;
  const url = new URL(page.replace(/^\/+/, ''), base);
  if (url.protocol !== 'chrome-extension:' || url.host !== id)
    throw new Error(`abpPage must be a page inside the extension, not ${page}`);
  return url.href;
}

/** The extension's own name and version (manifest.json), for when the runtime names no app. */
export async function extensionAppInfo(dir: string, id: string): Promise<AbpAppInfo> {
  try {
    const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    return {
      id,
      name: typeof manifest.name === 'string' ? manifest.name : id,
      version: typeof manifest.version === 'string' ? manifest.version : '0.0.0',
      ...(typeof manifest.description === 'string' ? { description: manifest.description } : {}),
    };
  } catch {
    return { id, name: id, version: '0.0.0' };
  }
}
