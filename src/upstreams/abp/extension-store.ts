/**
 * The `extensionId` flow's package handling: a CRX is downloaded from the configured store URL, its
 * CRX2/CRX3 header stripped, and the zip inside unpacked into `<cacheDir>/<id>`, which later connects reuse.
 */
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { unzipSync } from 'fflate';
import type { Logger } from '../../logger.js';

export const CRX_LIMITS = { timeoutMs: 60_000, maxBytes: 100 * 1024 * 1024 };

const EXTENSION_ID = /^[a-p]{32}$/;

export function isExtensionId(id: string): boolean {
  return EXTENSION_ID.test(id);
}

/** The zip inside a CRX package (`Cr24`, version 2 or 3); a bare zip is accepted as it is. */
export function stripCrxHeader(bytes: Uint8Array): Uint8Array {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.subarray(0, 4).toString('latin1') === 'PK\x03\x04') return bytes;
  if (buffer.length < 12 || buffer.subarray(0, 4).toString('latin1') !== 'Cr24') {
    throw new Error('not a CRX package (no Cr24 magic number)');
  }
  const version = buffer.readUInt32LE(4);
  let start: number;
  if (version === 3) start = 12 + buffer.readUInt32LE(8);
  else if (version === 2) start = 16 + buffer.readUInt32LE(8) + buffer.readUInt32LE(12);
  else throw new Error(`unsupported CRX version ${version}`);
  if (start >= buffer.length) throw new Error('truncated CRX package (header longer than the file)');
  return bytes.subarray(start);
}

/** Unpacks a zip into `dir`, refusing entries that would land outside it (zip-slip). */
export async function unpackZip(zip: Uint8Array, dir: string): Promise<void> {
  const entries = unzipSync(zip);
  const root = path.resolve(dir);
  const targets: Array<[string, Uint8Array]> = [];
  for (const [name, data] of Object.entries(entries)) {
    const target = path.resolve(root, name);
    if (name.includes('\0') || path.isAbsolute(name) || (target !== root && !target.startsWith(root + path.sep))) {
      throw new Error(`the package holds an entry outside its folder: ${name}`);
    }
    if (!name.endsWith('/')) targets.push([target, data]);
  }
  for (const [target, data] of targets) {
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, data);
  }
}

async function download(url: string): Promise<Uint8Array> {
  const signal = AbortSignal.timeout(CRX_LIMITS.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { signal, redirect: 'follow' });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    const why = signal.aborted ? `no answer within ${CRX_LIMITS.timeoutMs} ms` : (cause ?? (error as Error).message);
    throw new Error(
      `The extension could not be downloaded from ${url}: ${why}. Is the machine offline? Use extensionPath with an unpacked copy instead.`,
      { cause: error },
    );
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`The extension could not be downloaded from ${url}: HTTP ${response.status}`);
  }
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    for await (const chunk of response.body ?? []) {
      received += chunk.byteLength;
      if (received > CRX_LIMITS.maxBytes)
        throw new Error(`The extension package at ${url} is larger than ${CRX_LIMITS.maxBytes} bytes`);
      chunks.push(chunk);
    }
  } catch (error) {
    if (!signal.aborted) throw error;
    throw new Error(
      `The extension could not be downloaded from ${url}: not complete within ${CRX_LIMITS.timeoutMs} ms`,
      { cause: error },
    );
  }
  return Buffer.concat(chunks, received);
}

/** The unpacked extension for `id`: from the cache when it is there, else downloaded and unpacked into it. */
export async function ensureExtension(id: string, storeUrl: string, cacheDir: string, logger: Logger): Promise<string> {
  if (!isExtensionId(id)) throw new Error(`Not a Chrome extension id: "${id}" (32 letters a to p)`);
  const dir = path.resolve(cacheDir, id);
  if (existsSync(path.join(dir, 'manifest.json'))) {
    logger.info({ id, dir }, 'using the cached extension');
    return dir;
  }
  const url = storeUrl.split('{id}').join(id);
  logger.info({ id, url }, 'downloading the extension');
  const crx = await download(url);
  let zip: Uint8Array;
  try {
    zip = stripCrxHeader(crx);
  } catch (error) {
    throw new Error(`The package downloaded from ${url} is not a usable extension: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // Unpacked next to the cache entry and renamed into place, so a failure never leaves half an extension.
  const staging = `${dir}.partial-${process.pid}-${Date.now()}`;
  try {
    await unpackZip(zip, staging);
    if (!existsSync(path.join(staging, 'manifest.json'))) throw new Error('it has no manifest.json');
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    throw new Error(`The package downloaded from ${url} could not be unpacked: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return dir;
}
