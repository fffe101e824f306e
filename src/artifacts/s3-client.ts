import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { Logger } from '../logger.js';
import type { S3StoreOptions } from './types.js';

const SDK_WARNING_SWITCH = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';

/**
 * The SDK writes a multi-line "NodeVersionSupportWarning" to stderr on Node < 22, which breaks the one
 * JSON log line per event that stderr carries. Its own switch turns that off; pino says it once instead.
 */
function quietNodeVersionWarning(log: Logger): void {
  if (process.env[SDK_WARNING_SWITCH] !== undefined) return;
  process.env[SDK_WARNING_SWITCH] = 'true';
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22)
    log.info(
      { node: process.versions.node },
      'AWS SDK releases after January 2027 need Node 22; the version pinned in package.json runs on this Node',
    );
}

/**
 * The client for `artifacts.s3`. Checksums only when an operation requires them: since SDK 3.729 the
 * default adds CRC32 trailers and validates response checksums, which most S3-compatible services
 * (R2, SeaweedFS, Garage, Ceph RGW, older MinIO) reject or do not send.
 */
export function createS3Client(options: S3StoreOptions, log: Logger): S3Client {
  quietNodeVersionWarning(log);
  const config: S3ClientConfig = {
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    // Without limits the SDK waits for ever for a service that accepted a request and went silent. `socketTimeout`
    // counts inactivity, not the whole request: a large upload or download that keeps moving is not cut short.
    requestHandler: { connectionTimeout: options.timeoutMs, socketTimeout: options.timeoutMs },
  };
  if (options.endpoint) config.endpoint = options.endpoint;
  if (options.accessKeyId && options.secretAccessKey) {
    config.credentials = {
      accessKeyId: options.accessKeyId,
      secretAccessKey: options.secretAccessKey,
      ...(options.sessionToken ? { sessionToken: options.sessionToken } : {}),
    };
  }
  return new S3Client(config);
}

/** Where the bucket is, for messages: the endpoint (or AWS's regional one) and the bucket. */
export function describeBucket(options: S3StoreOptions): string {
  const endpoint = options.endpoint ?? `https://s3.${options.region}.amazonaws.com`;
  return `S3 bucket "${options.bucket}" at ${endpoint}`;
}

/** An S3 or network error in a few words: `NoSuchBucket (404)`, `connect ECONNREFUSED 127.0.0.1:9000`. */
export function describeS3Error(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const e = err as Error & { $metadata?: { httpStatusCode?: number }; code?: string; Code?: string };
  const status = e.$metadata?.httpStatusCode;
  const name = e.Code ?? (e.name !== 'Error' ? e.name : undefined);
  // A refused connection arrives as an AggregateError or with only a code, and no message.
  const cause = (e as { errors?: Error[] }).errors?.[0]?.message ?? e.message;
  const what = [name, cause && cause !== name ? cause : undefined].filter(Boolean).join(': ') || e.code || 'failed';
  return status ? `${what} (HTTP ${status})` : what;
}

/** Whether the error says the object is not there (GET's NoSuchKey, HEAD's bare 404). */
export function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}
