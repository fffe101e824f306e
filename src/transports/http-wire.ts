import type { IncomingMessage } from 'node:http';
import { SdkError, SdkHttpError, SdkErrorCode } from '@modelcontextprotocol/client';
import { onAbort, type Signal } from '../rpc/cancellation.js';
import { Frame, type Id } from '../wire/frame.js';
import { isExactNumber } from '../wire/json.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../wire/lines.js';
import { JsonBodyReader, readFrame } from './json-body.js';
import { SseReader, type SseEvent } from './sse-reader.js';

/**
 * What the two HTTP wires (http-client.ts, sse-client.ts) share: reading answers into frames, and failing a request
 * whose answer cannot come.
 */

/** The code a request gets when its HTTP exchange failed (the code SDK v1 used for a lost connection). */
export const HTTP_FAILURE_CODE = -32000;

/** A map key for a JSON-RPC id: 1 and "1" differ; a number kept as text is its text. */
export function idKey(id: unknown): unknown {
  if (isExactNumber(id)) return `#${id.rawJSON}`;
  if (typeof id === 'string') return `"${id}`;
  return id;
}

/** The configured headers with lower-case names, as the SDK's `Headers` holds them. */
export function lowerCased(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}

/** The error frame a request gets in place of an answer that cannot come. */
export function failureFrame(id: Id, error: unknown): Frame {
  const message = error instanceof Error ? error.message : String(error);
  return Frame.error(id, { code: HTTP_FAILURE_CODE, message });
}

/** An HTTP error answered to a POST, with the status and the start of the body in its message. */
export function postError(res: IncomingMessage, text: string, reason?: string): SdkHttpError {
  const status = res.statusCode ?? 0;
  const statusText = res.statusMessage ?? '';
  const excerpt = reason ?? (text.length > 300 ? `${text.slice(0, 300)}…` : text);
  return new SdkHttpError(
    SdkErrorCode.ClientHttpNotImplemented,
    `Error POSTing to endpoint (HTTP ${status}${statusText ? ` ${statusText}` : ''}): ${excerpt || '(no body)'}`,
    { status, statusText, text },
  );
}

/** The JSON-RPC error answer for request `id` an HTTP error's body holds, if it holds one. */
export function errorAnswerIn(text: string, id: Id): Frame | undefined {
  let frame: Frame;
  try {
    frame = Frame.read(text);
  } catch {
    return undefined;
  }
  return frame.kind === 'response' && frame.isError && idKey(frame.id) === idKey(id) ? frame : undefined;
}

/**
 * Runs an exchange and resolves once its body is written. It rejects only when the request could not be sent at all
 * (the server is unreachable, a header is invalid): every failure after that, and an authorization failure, goes to
 * `failed`, to become the request's error answer.
 */
export function whenWritten(
  exchange: (written: () => void) => Promise<void>,
  failed: (error: unknown) => void,
  isAuthFailure: (error: unknown) => boolean,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let written = false;
    const onWritten = () => {
      if (written) return;
      written = true;
      resolve();
    };
    exchange(onWritten).then(onWritten, (error: unknown) => {
      if (!written && !isAuthFailure(error)) {
        written = true;
        return reject(error instanceof Error ? error : new Error(String(error)));
      }
      onWritten();
      failed(error);
    });
  });
}

/** Reads a JSON answer; each message goes to `frame`. Rejects when the body passes `maxBytes` or is cut short. */
export function readJsonAnswer(
  res: IncomingMessage,
  frame: (frame: Frame) => void,
  onerror: (error: Error) => void,
  maxBytes = DEFAULT_MAX_MESSAGE_BYTES,
): Promise<void> {
  const reader = new JsonBodyReader(
    {
      value: (text, blobs) => {
        const read = readFrame(text, blobs, onerror);
        if (read) frame(read);
      },
      junk: (reason) => onerror(new Error(`the upstream's JSON answer is not all JSON-RPC: ${reason}`)),
    },
    maxBytes,
  );
  let bytes = 0;
  return new Promise((resolve, reject) => {
    res.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) return res.destroy(new Error(`the upstream's answer is over ${maxBytes} bytes`));
      reader.push(chunk);
    });
    res.once('close', () => {
      reader.end();
      if (res.complete && bytes <= maxBytes) resolve();
      else
        reject(
          new Error(bytes > maxBytes ? `the upstream's answer is over ${maxBytes} bytes` : 'the answer was cut short'),
        );
    });
  });
}

export interface StreamHandlers {
  /** A `message` event's frame (events of other types, and events without data, carry none). */
  frame(frame: Frame, event: SseEvent): void;
  /** Every event that came with an id. */
  id?(id: string): void;
  /** Events of other types (the legacy transport's `endpoint`); their blobs are the handler's. */
  other?(event: SseEvent): void;
  retry?(ms: number): void;
  onerror(error: Error): void;
}

/** Reads an SSE response to its end (or until it is cut); resolves when it is over either way. */
export function readEventStream(
  res: IncomingMessage,
  handlers: StreamHandlers,
  maxBytes = DEFAULT_MAX_MESSAGE_BYTES,
): Promise<void> {
  const reader = new SseReader(
    {
      event: (event) => {
        if (event.id) handlers.id?.(event.id);
        if (event.event !== undefined && event.event !== 'message') {
          if (handlers.other) return handlers.other(event);
          return event.blobs.dispose();
        }
        // A priming event (an id, empty data) or a keep-alive.
        if (!event.data) return event.blobs.dispose();
        const frame = readFrame(event.data, event.blobs, handlers.onerror);
        if (frame) handlers.frame(frame, event);
      },
      retry: (ms) => handlers.retry?.(ms),
      oversize: (bytes) => handlers.onerror(new Error(`discarded a ${bytes}-byte event over the size limit`)),
    },
    maxBytes,
  );
  return new Promise((resolve) => {
    res.on('data', (chunk: Buffer) => reader.push(chunk));
    res.once('close', () => {
      reader.end();
      resolve();
    });
  });
}

/** An answer of a type neither JSON nor SSE, as the SDK reports it. */
export function unexpectedContent(res: IncomingMessage): SdkError {
  const contentType = res.headers['content-type'];
  return new SdkError(SdkErrorCode.ClientHttpUnexpectedContent, `Unexpected content type: ${contentType}`, {
    contentType,
  });
}

/** Waits `ms`, or rejects when `signal` aborts first. */
export function delay(ms: number, signal: Signal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      stopListening();
      resolve();
    }, ms);
    const stopListening = onAbort(signal, () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    });
  });
}
