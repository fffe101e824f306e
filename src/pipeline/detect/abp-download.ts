/**
 * Fetching the file an ABP BinaryDataReference points to, with a deadline and a byte cap enforced while the
 * body streams in. Error messages are written for the model that will read them (the caller adds them to
 * the summary), and never contain a query-auth token.
 */
import type { BinaryDataReference } from './abp-shapes.js';
import { http } from '../../wire/node-http.js';
import { addressPolicy } from './address-policy.js';
import { DeniedAddressError, guardedGet } from './guarded-get.js';

export interface DownloadOptions {
  timeoutMs: number;
  maxBytes: number;
  /**
   * Host names, addresses and CIDR ranges a download may reach although internal (`pipeline.download.allow`):
   * loopback, private, link-local and other non-public addresses are refused otherwise (address-policy.ts).
   */
  allow?: readonly string[];
  /** Origins reached whatever their address: the app an ABP backend of this process shows (abp-origins.ts). */
  trustedOrigins?: ReadonlySet<string>;
}

export interface DownloadedReference {
  bytes: Buffer;
  /** The reference's declared type; the response's Content-Type only when the reference gives a generic one. */
  mimeType: string;
}

const GENERIC_TYPES = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

function requestFor(ref: BinaryDataReference): { url: URL; headers: Record<string, string> } {
  let url: URL;
  try {
    url = new URL(ref.downloadUrl);
  } catch {
    throw new Error(`download of ${ref.downloadUrl} failed: not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`download of ${ref.downloadUrl} refused: only http and https URLs are fetched`);
  }
  const headers: Record<string, string> = {};
  const auth = ref.auth;
  if (auth) {
    if (auth.type === 'bearer') {
      if (auth.token) headers[tokenHeader(ref, auth.header)] = `Bearer ${auth.token}`;
    } else if (auth.type === 'query') {
      if (auth.token) url.searchParams.set('token', auth.token);
    } else {
      throw new Error(`download of ${ref.downloadUrl} failed: unsupported auth type "${auth.type}"`);
    }
  }
  return { url, headers };
}

/**
 * The header a bearer token goes in: the upstream names it, so it must be a header name at all, and none that
 * frames or routes the request (a token written as `Host` or `Transfer-Encoding` would change where and how it
 * goes). The token reaches only the reference's own origin (guarded-get.ts drops it at a redirect elsewhere).
 */
function tokenHeader(ref: BinaryDataReference, name: string | undefined): string {
  if (!name) return 'Authorization';
  try {
    http.validateHeaderName(name);
    http.validateHeaderValue(name, `Bearer ${ref.auth?.token ?? ''}`);
  } catch {
    throw new Error(`download of ${ref.downloadUrl} refused: the token's header is not a valid header`);
  }
  if (RESERVED_HEADERS.has(name.toLowerCase()) || name.toLowerCase().startsWith('proxy-'))
    throw new Error(`download of ${ref.downloadUrl} refused: a token cannot go in the ${name} header`);
  return name;
}

const RESERVED_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'keep-alive',
  'expect',
  'cookie',
]);

function expiryNote(ref: BinaryDataReference): string {
  if (!ref.expiresAt) return '';
  const expires = Date.parse(ref.expiresAt);
  return Number.isFinite(expires) && expires < Date.now() ? ` (the link expired at ${ref.expiresAt})` : '';
}

function messageOf(value: unknown): string | undefined {
  // Not `instanceof Error`: fetch's errors may come from another realm (undici's, or a test VM's).
  if (typeof value !== 'object' || value === null) return undefined;
  const message = (value as { message?: unknown }).message;
  return typeof message === 'string' && message !== '' ? message : undefined;
}

function describeFailure(error: unknown): string {
  const message = messageOf(error) ?? String(error);
  // undici wraps network errors as "fetch failed" with the useful part (ECONNREFUSED, ENOTFOUND) in `cause`.
  const cause = messageOf((error as { cause?: unknown } | null)?.cause);
  return cause ? `${message}: ${cause}` : message;
}

/**
 * Downloads a BinaryDataReference: GET with the reference's auth (bearer → `Authorization: Bearer <token>`,
 * or that value under `auth.header`; query → `?token=<token>`), following redirects (the token to the first origin
 * only), to public addresses and those `allow` names (each hop checked on the address it connects to), aborted after
 * `timeoutMs` and as soon as more than `maxBytes` arrive. Throws an Error naming the URL on a non-2xx
 * status, timeout, oversize body or network failure.
 */
export async function downloadReference(
  ref: BinaryDataReference,
  options: DownloadOptions,
): Promise<DownloadedReference> {
  const { timeoutMs, maxBytes } = options;
  const policy = addressPolicy(options.allow ?? []);
  const shown = ref.downloadUrl; // the URL as the app gave it: a query token added here is never shown
  const { url, headers } = requestFor(ref);
  const signal = AbortSignal.timeout(timeoutMs);
  const timedOut = (): Error => new Error(`download of ${shown} timed out after ${timeoutMs} ms`);
  let response: Response;
  try {
    response = await guardedGet(url, { headers, signal, policy, trustedOrigins: options.trustedOrigins });
  } catch (error) {
    if (signal.aborted) throw timedOut();
    if (error instanceof DeniedAddressError)
      throw new Error(
        `download of ${shown} refused: ${error.message}; an operator can allow it with pipeline.download.allow`,
        { cause: error },
      );
    throw new Error(`download of ${shown} failed: ${describeFailure(error)}`, { cause: error });
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    throw new Error(`download of ${shown} failed with HTTP status ${status}${expiryNote(ref)}`);
  }
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`download of ${shown} exceeded ${maxBytes} bytes (the server announced ${declared})`);
  }

  const chunks: Uint8Array[] = [];
  let received = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      let step: Awaited<ReturnType<typeof reader.read>>;
      try {
        step = await reader.read();
      } catch (error) {
        if (signal.aborted) throw timedOut();
        throw new Error(`download of ${shown} failed while reading: ${describeFailure(error)}`, { cause: error });
      }
      if (step.done) break;
      received += step.value.byteLength;
      if (received > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new Error(`download of ${shown} exceeded ${maxBytes} bytes`);
      }
      chunks.push(step.value);
    }
  }

  const contentType = response.headers.get('content-type') ?? '';
  const declaredType = ref.mimeType.trim();
  const mimeType = GENERIC_TYPES.has(declaredType.toLowerCase()) && contentType ? contentType : declaredType;
  return { bytes: Buffer.concat(chunks, received), mimeType };
}
