/**
 * Web-app manifest discovery, before any browser is started: the page's `<head>` is streamed until
 * `</head>` (or 50 KB), the first `<link rel="abp-manifest" href>` names the manifest, which is fetched with
 * a deadline, a size cap and a redirect limit, parsed and checked against the manifest's JSON Schema.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { ABP_MANIFEST_SCHEMA } from './manifest-schema.js';
import type { AbpManifest } from './types.js';

export interface ManifestLimits {
  headBytes: number;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
}

export const MANIFEST_LIMITS: ManifestLimits = {
  headBytes: 50 * 1024,
  timeoutMs: 10_000,
  maxBytes: 1024 * 1024,
  maxRedirects: 5,
};

export interface DiscoveredManifest {
  manifest: AbpManifest;
  manifestUrl: string;
}

const ATTRIBUTE = /([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;

function decodeEntities(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/**
 * The href of the first `<link>` whose rel list holds `abp-manifest` (case-sensitive, as the protocol
 * says; attribute names are HTML's, so case-insensitive), in any attribute order. Commented-out tags do
 * not count.
 */
export function findManifestHref(html: string): string | undefined {
  const text = html.replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  for (const tag of text.matchAll(/<link\b([^>]*)>/gi)) {
    const attributes = new Map<string, string>();
    for (const [, name, double, single, bare] of tag[1]!.matchAll(ATTRIBUTE)) {
      const key = name!.toLowerCase();
      if (!attributes.has(key)) attributes.set(key, decodeEntities(double ?? single ?? bare ?? ''));
    }
    const rel = attributes.get('rel');
    const href = attributes.get('href')?.trim();
    if (rel !== undefined && rel.split(/\s+/).includes('abp-manifest') && href) return href;
  }
  return undefined;
}

function describe(error: unknown): string {
  const message = (error as { message?: string } | null)?.message ?? String(error);
  const cause = (error as { cause?: { message?: string } } | null)?.cause?.message;
  return cause ? `${message}: ${cause}` : message;
}

const statusText = (response: Response): string =>
  `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;

/** The page's HTML up to `</head>` or `limit` bytes, whichever comes first, and the URL it was served from. */
async function readHead(pageUrl: string, limits: ManifestLimits): Promise<{ head: string; finalUrl: string }> {
  const failure = (why: string): Error => new Error(`Could not fetch ${pageUrl} to discover its ABP manifest: ${why}`);
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let response: Response;
  try {
    response = await fetch(pageUrl, { signal, redirect: 'follow', headers: { accept: 'text/html' } });
  } catch (error) {
    throw failure(signal.aborted ? `no answer within ${limits.timeoutMs} ms` : describe(error));
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw failure(statusText(response));
  }
  const decoder = new TextDecoder();
  let head = '';
  let received = 0;
  const reader = response.body?.getReader();
  try {
    while (reader && received < limits.headBytes) {
      const step = await reader.read();
      if (step.done) break;
      const room = limits.headBytes - received;
      const chunk = step.value.byteLength > room ? step.value.subarray(0, room) : step.value;
      received += chunk.byteLength;
      head += decoder.decode(chunk, { stream: true });
      const end = head.search(/<\/head\s*>/i);
      if (end >= 0) {
        head = head.slice(0, end);
        break;
      }
    }
  } catch (error) {
    throw failure(signal.aborted ? `no answer within ${limits.timeoutMs} ms` : describe(error));
  } finally {
    await reader?.cancel().catch(() => undefined);
  }
  return { head, finalUrl: response.url || pageUrl };
}

/** GET following at most `maxRedirects` redirects, the body capped at `maxBytes`, all within `timeoutMs`. */
async function fetchManifestText(manifestUrl: string, limits: ManifestLimits): Promise<string> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const timedOut = (): Error =>
    new Error(`Fetching the ABP manifest ${manifestUrl} timed out after ${limits.timeoutMs} ms`);
  let url = manifestUrl;
  let response: Response;
  for (let redirects = 0; ; redirects++) {
    try {
      response = await fetch(url, { signal, redirect: 'manual', headers: { accept: 'application/json' } });
    } catch (error) {
      if (signal.aborted) throw timedOut();
      throw new Error(`Could not fetch the ABP manifest ${manifestUrl}: ${describe(error)}`, { cause: error });
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) break;
    await response.body?.cancel().catch(() => undefined);
    if (redirects >= limits.maxRedirects) {
      throw new Error(`The ABP manifest ${manifestUrl} redirected more than ${limits.maxRedirects} times`);
    }
    url = new URL(location, url).href;
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`Could not fetch the ABP manifest ${url}: ${statusText(response)}`);
  }
  const tooLarge = (): Error =>
    new Error(`The ABP manifest ${url} is larger than the ${limits.maxBytes} bytes allowed`);
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let received = 0;
  const reader = response.body?.getReader();
  try {
    for (;;) {
      const step = reader ? await reader.read() : { done: true as const, value: undefined };
      if (step.done) break;
      received += step.value.byteLength;
      if (received > limits.maxBytes) throw tooLarge();
      chunks.push(step.value);
    }
  } catch (error) {
    if (signal.aborted) throw timedOut();
    throw error;
  } finally {
    await reader?.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks, received).toString('utf8');
}

let validator: ReturnType<Ajv['compile']> | undefined;

function fieldPath(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : `${i === 0 ? '' : '.'}${part}`))
    .join('');
}

function messageFor(error: ErrorObject): string {
  const at = fieldPath(error.instancePath);
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return `Manifest missing required field: ${at ? `${at}.` : ''}${missing}`;
  }
  return `Manifest field ${at || '(root)'} ${error.message ?? 'is invalid'}`;
}

/** Checks a parsed manifest against the schema; the error lists every problem in the seed's words. */
export function validateManifest(value: unknown, manifestUrl: string): AbpManifest {
  validator ??= new Ajv({ allErrors: true, strict: true }).compile(ABP_MANIFEST_SCHEMA);
  if (validator(value)) return value as unknown as AbpManifest;
  const messages = [...new Set((validator.errors ?? []).map(messageFor))];
  throw new Error(`Invalid ABP manifest ${manifestUrl}: ${messages.join('; ')}`);
}

/** Steps 1 of the web-app connect: no browser involved, so a bad URL fails fast and cheaply. */
export async function discoverManifest(
  pageUrl: string,
  limits: ManifestLimits = MANIFEST_LIMITS,
): Promise<DiscoveredManifest> {
  let parsed: URL;
  try {
    parsed = new URL(pageUrl);
  } catch {
    throw new Error(`Not a valid URL: ${pageUrl}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(
      `Only http and https pages can be connected by URL, not ${pageUrl} (use extensionPath for extensions)`,
    );
  }
  const { head, finalUrl } = await readHead(parsed.href, limits);
  const href = findManifestHref(head);
  if (!href) {
    throw new Error(
      `No ABP manifest found: ${pageUrl} has no <link rel="abp-manifest" href="..."> in its <head> ` +
        `(read up to </head> or the first ${limits.headBytes} bytes). Is this an ABP app?`,
    );
  }
  let manifestUrl: string;
  try {
    manifestUrl = new URL(href, finalUrl).href;
  } catch {
    throw new Error(`The ABP manifest link of ${pageUrl} is not a valid URL: ${href}`);
  }
  const text = await fetchManifestText(manifestUrl, limits);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`The ABP manifest ${manifestUrl} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return { manifest: validateManifest(json, manifestUrl), manifestUrl };
}
