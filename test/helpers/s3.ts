// A real S3 server for the tests: s3rver (npm) on 127.0.0.1 over a temp directory, and a relay in front
// of it that records each request and can play an outage.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import S3rver from 's3rver';
import FilesystemStore from 's3rver/lib/stores/filesystem.js';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

// The SDK's multi-line warning about Node 22 would land among the test output; the proxy logs it through pino.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// s3rver answers a PUT before its object's file is even open (it resolves when the body has passed its md5 hashing,
// not when the file is written): a DELETE right behind it (the store's write probe) can remove the key's directory
// first, and the late open throws ENOENT with no listener, failing whichever suite runs s3rver. S3 itself stores an
// object before it answers; so does this.
FilesystemStore.prototype.putObject = async function (this: FilesystemStore, object) {
  const content = Buffer.isBuffer(object.content) ? object.content : await bytesOf(object.content);
  const path = this.getResourcePath(object.bucket, object.key, 'object');
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
  const md5 = createHash('md5').update(content).digest('hex');
  await this.putMetadata(object.bucket, object.key, object.metadata, md5);
  return { size: content.length, md5 };
};

async function bytesOf(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** s3rver's fixed credentials. */
export const S3_KEY = 'S3RVER';
export const S3_SECRET = 'S3RVER';

export interface S3Server {
  endpoint: string;
  /** Where s3rver keeps the objects: `<directory>/<bucket>/<key>._S3rver_object`. */
  directory: string;
  bucket: string;
  client: S3Client;
  /** Every key under `prefix`. */
  keys(prefix?: string): Promise<string[]>;
  getText(key: string): Promise<string>;
  putText(key: string, text: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startS3(bucket = 'offload-test'): Promise<S3Server> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3_KEY, secretAccessKey: S3_SECRET },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const keys = async (prefix = ''): Promise<string[]> => {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
      );
      out.push(...(page.Contents ?? []).map((c) => c.Key!));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  };
  return {
    endpoint,
    directory: dir,
    bucket,
    client,
    keys,
    getText: async (key) =>
      (await (await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToString()) ?? '',
    putText: async (key, text) => {
      // Bytes with their length: an empty string as the body would make the SDK warn of a stream of unknown length.
      const body = Buffer.from(text, 'utf8');
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: body.length }));
    },
    stop: async () => {
      client.destroy();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface S3Relay {
  endpoint: string;
  /** `METHOD /path?query` of each request relayed. */
  requests: string[];
  /** The most requests under way at once among those `which` picks (by `METHOD /path?query`). */
  atOnce(which: (request: string) => boolean): number;
  /** While true, every connection is cut at once: the bucket is unreachable. */
  down: boolean;
  /** Requests it picks (by `METHOD /path?query`) wait, unanswered, until `release`. */
  hold?: (request: string) => boolean;
  /** Sends the held requests on, and holds no more. */
  release(): void;
  close(): Promise<void>;
}

/** Runs `test` with a relay to `target` (requests seen, some held), closed after, whatever it held let go. */
export async function withRelay(target: string, test: (relay: S3Relay) => Promise<void>): Promise<void> {
  const relay = await startRelay(target);
  try {
    await test(relay);
  } finally {
    relay.release();
    await relay.close();
  }
}

/** A plain HTTP relay to `target`: what the proxy sends to S3 is seen, and an outage is one flag. */
export async function startRelay(target: string): Promise<S3Relay> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  // Each request's start (+1) and end (-1), in the order they happened.
  const steps: { request: string; step: 1 | -1 }[] = [];
  const atOnce = (which: (request: string) => boolean): number => {
    let now = 0;
    let most = 0;
    for (const { request, step } of steps) if (which(request)) most = Math.max(most, (now += step));
    return most;
  };
  const held: Array<() => void> = [];
  const relay: S3Relay = {
    endpoint: '',
    requests: [],
    atOnce,
    down: false,
    release: () => {
      relay.hold = undefined;
      for (const send of held.splice(0)) send();
    },
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    if (relay.down) {
      req.socket.destroy();
      return;
    }
    const line = `${req.method} ${req.url}`;
    relay.requests.push(line);
    steps.push({ request: line, step: 1 });
    res.once('close', () => steps.push({ request: line, step: -1 }));
    // The body is read on by the upstream request once it is sent; meanwhile it waits in the socket.
    // A held request whose client gave up waiting (a timeout) is not sent on when let go.
    if (relay.hold?.(line)) held.push(() => !res.destroyed && send(req, res));
    else send(req, res);
  });
  const send = (req: IncomingMessage, res: ServerResponse): void => {
    const upstream = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    // A client that goes away ends its request to the bucket too (else the bucket's server waits for it at its stop).
    res.once('close', () => upstream.destroy());
    req.pipe(upstream);
  };
  server.on('connection', (socket) => {
    if (relay.down) return socket.destroy();
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  relay.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return relay;
}
