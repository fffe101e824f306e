// An HTTP server on 127.0.0.1 for the ABP browser tests: the fixture app (test/fixtures/abp-app), the files
// its capabilities point at, broken-manifest variants, and a CRX3 package of the fixture extension (the
// `extensionId` flow's "store"). Also: which chromium processes a test left running.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { makePng } from '../fixtures/pdf.mjs';

export const ABP_APP_DIR = fileURLToPath(new URL('../fixtures/abp-app/', import.meta.url));
export const ABP_EXTENSION_DIR = fileURLToPath(new URL('../fixtures/abp-extension/', import.meta.url));

/** The bytes behind the fixture's BinaryDataReference (`file.reference`). */
export const SAMPLE_PNG = makePng(24, 12, 5);
export const REPORT_CSV = 'region,revenue\nnorth,10\nsouth,20\n';
/** A syntactically valid extension id under which the store serves the fixture extension. */
export const STORE_EXTENSION_ID = 'abcdefghijklmnopabcdefghijklmnop';

export interface AbpServer {
  /** Base URL without a trailing slash; the app is at `${url}/`. */
  url: string;
  /** The `extensionStoreUrl` template serving the fixture extension as CRX3. */
  storeUrl: string;
  /** How many CRX packages were served so far (to see the cache at work). */
  crxRequests(): number;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
};

const page = (head: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>variant</title>${head}</head><body><p>variant</p></body></html>`;

const link = (href: string): string => `<link rel="abp-manifest" href="${href}">`;

/** Pages whose manifest (or its absence) is broken in one documented way, and the manifests they point at. */
const VARIANT_PAGES: Record<string, string> = {
  'no-link.html': page('<link rel="stylesheet" href="/style.css"><!-- <link rel="abp-manifest" href="/abp.json"> -->'),
  'uppercase-rel.html': page('<link rel="ABP-Manifest" href="/abp.json">'),
  'link-404.html': page(link('/variants/missing.json')),
  'invalid-json.html': page(link('/variants/invalid.json')),
  'missing-fields.html': page(link('/variants/missing-app-id.json')),
  'no-capabilities.html': page(link('/variants/no-capabilities.json')),
  'oversize.html': page(link('/variants/huge.json')),
  'redirect-loop.html': page(link('/variants/loop.json')),
  'redirect-ok.html': page(link('moved.json')),
  'slow-manifest.html': page(link('/variants/slow.json')),
  'big-head.html': page(`<meta name="filler" content="${'x'.repeat(60 * 1024)}">${link('/abp.json')}`),
};

function manifestWithout(field: 'app.id' | 'capabilities'): string {
  const manifest = JSON.parse(readFileSync(path.join(ABP_APP_DIR, 'abp.json'), 'utf8')) as Record<string, unknown>;
  if (field === 'capabilities') delete manifest.capabilities;
  else delete (manifest.app as Record<string, unknown>).id;
  return JSON.stringify(manifest);
}

function filesOf(dir: string, prefix = ''): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) Object.assign(out, filesOf(full, `${prefix}${name}/`));
    else out[`${prefix}${name}`] = readFileSync(full);
  }
  return out;
}

/** A CRX3 package: `Cr24`, version 3, header length, a (here meaningless) header, then the zip. */
export function buildCrx3(dir: string): Buffer {
  const zip = zipSync(filesOf(dir));
  const header = Buffer.from('fixture-crx3-header-not-verified');
  const prefix = Buffer.alloc(12);
  prefix.write('Cr24', 0, 'latin1');
  prefix.writeUInt32LE(3, 4);
  prefix.writeUInt32LE(header.length, 8);
  return Buffer.concat([prefix, header, Buffer.from(zip)]);
}

export async function startAbpServer(): Promise<AbpServer> {
  const crx = buildCrx3(ABP_EXTENSION_DIR);
  const appFiles = new Set(await readdir(ABP_APP_DIR));
  let crxServed = 0;
  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const p = url.pathname;
      const send = (
        status: number,
        type: string,
        body: string | Buffer,
        headers: Record<string, string> = {},
      ): void => {
        res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...headers });
        res.end(req.method === 'HEAD' ? undefined : body);
      };
      const file = p === '/' ? 'index.html' : p.slice(1);
      if (appFiles.has(file)) {
        send(
          200,
          TYPES[path.extname(file)] ?? 'application/octet-stream',
          await readFile(path.join(ABP_APP_DIR, file)),
        );
      } else if (p === '/files/sample.png') {
        send(200, 'image/png', SAMPLE_PNG);
      } else if (p === '/files/report.csv') {
        const disposition: Record<string, string> = url.searchParams.has('attachment')
          ? { 'content-disposition': 'attachment; filename="report.csv"' }
          : {};
        send(200, 'text/csv', REPORT_CSV, disposition);
      } else if (p === '/files/endless.bin') {
        // A download that never finishes: a few bytes, then silence until the client goes away.
        res.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-disposition': 'attachment; filename="endless.bin"',
        });
        res.write(Buffer.alloc(1024));
      } else if (p.startsWith('/variants/') && VARIANT_PAGES[p.slice('/variants/'.length)]) {
        send(200, TYPES['.html']!, VARIANT_PAGES[p.slice('/variants/'.length)]!);
      } else if (p === '/variants/invalid.json') {
        send(200, 'application/json', '{ "abp": "0.1", "app": ');
      } else if (p === '/variants/missing-app-id.json') {
        send(200, 'application/json', manifestWithout('app.id'));
      } else if (p === '/variants/no-capabilities.json') {
        send(200, 'application/json', manifestWithout('capabilities'));
      } else if (p === '/variants/huge.json') {
        // Chunked, no Content-Length: the 1 MB cap must hold while the body streams in.
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = `"${'y'.repeat(64 * 1024)}",`;
        res.write('{"abp":"0.1","padding":[');
        for (let i = 0; i < 20 && !res.destroyed; i++) res.write(chunk);
        res.end('""]}');
      } else if (p === '/variants/loop.json') {
        const n = Number(url.searchParams.get('n') ?? '0');
        res.writeHead(302, { location: `/variants/loop.json?n=${n + 1}` }).end();
      } else if (p === '/variants/moved.json') {
        res.writeHead(301, { location: '/abp.json' }).end();
      } else if (p === '/variants/slow.json') {
        req.socket.setTimeout(0); // never answers; the client's timeout must end it
      } else if (p.startsWith('/crx/')) {
        const id = p.slice('/crx/'.length);
        if (id !== STORE_EXTENSION_ID) return send(404, 'text/plain', 'no such extension');
        crxServed++;
        send(200, 'application/x-chrome-extension', crx);
      } else {
        send(404, 'text/plain', 'not found');
      }
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    storeUrl: `${url}/crx/{id}`,
    crxRequests: () => crxServed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ProcessInfo {
  pid: number;
  command: string;
}

function readProc(pid: string, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined; // gone meanwhile
  }
}

/**
 * Chromium processes descending from `rootPid` (default: this jest worker), so parallel test files never
 * see each other's browsers. Linux only (reads /proc). Zombies are not counted: they hold no resources
 * and vanish when reaped.
 */
export function chromiumProcesses(rootPid: number = process.pid): ProcessInfo[] {
  const parent = new Map<number, number>();
  const commands = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProc(entry, 'stat');
    if (!stat) continue;
    // pid (comm) state ppid ...: comm may contain spaces and parentheses, so parse from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') continue;
    parent.set(Number(entry), Number(fields[1]));
    commands.set(Number(entry), (readProc(entry, 'cmdline') ?? '').split('\0').join(' ').trim());
  }
  const descends = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === rootPid) return true;
    return false;
  };
  return [...commands]
    .filter(([pid, command]) => /chrom/i.test(command) && descends(pid))
    .map(([pid, command]) => ({ pid, command }));
}
