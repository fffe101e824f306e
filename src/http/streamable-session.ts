import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import { keyOf } from '../rpc/peer.js';
import { Frame, type Id } from '../wire/frame.js';
import { jsonText } from '../wire/json.js';
import { KEEP_ALIVE, messageEvent, SSE_HEADERS } from '../wire/sse.js';
import type { FrameContext, SendOptions, Wire } from '../wire/wire.js';
import { LazyAnswer } from './answer.js';
import { primingRecord, type EventStore } from '../shared/event-store.js';
import { rpcError } from './context.js';
import { LOST_REQUEST_ERROR, unansweredRequests } from './lost-requests.js';

/**
 * Stream ids: this process's own random part and a count. Unique across replicas that share a session's store (each
 * has its own random part), and cheaper per POST than a UUID each.
 */
const STREAM_IDS = `${randomUUID()}-`;
let streamCount = 0;

/** The stream id of a session's GET stream in the event store (the SDK's, so stores written for it fit). */
const STANDALONE = '_GET_stream';

/** The requests whose answer may go as one JSON body: calls, where reading SSE costs a client most. */
const CALLS = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** How often an open SSE stream gets a keep-alive comment. */
const KEEP_ALIVE_MS = 30_000;

/** A response stream of the session: a POST's (its requests' answers and what belongs to them) or the GET stream. */
interface Stream {
  readonly id: string;
  /** The ids of the requests a POST's stream answers (its priming record names them). */
  readonly asks?: readonly unknown[];
  /** A POST of one request: JSON or SSE, as the answer comes (answer.ts). */
  lazy?: LazyAnswer;
  /** An SSE response written as it is (the GET stream, a batch POST, a resumed stream). */
  res?: ServerResponse;
  keepAlive?: NodeJS.Timeout;
  /** Event ids a resumed stream already replayed (a live send of the same event is not written twice). */
  replayed?: Set<string>;
  /** The id of the stream's priming event, once stored: written first when the stream opens. */
  primingId?: string;
}

export interface StreamableOptions {
  /** Where sent events are kept for clients that resume (this session's view of the store), when resumable. */
  events?: EventStore;
  /** The SSE `retry` the priming event suggests. */
  retryMs?: number;
  /** How long a call may go unanswered before its response becomes a stream (answer.ts): `http.streamAfterMs`. */
  streamAfterMs: number;
  log: Logger;
}

/**
 * A 2025 Streamable HTTP session as a wire: what its POSTs carry comes in as frames; what the relay sends goes out on
 * the stream it belongs to, as the SDK's transport sends it: an answer on the POST of its request (which ends when
 * its requests are answered), a message related to a request on that request's stream, anything else on the GET
 * stream. With an event store every SSE event gets an id and is kept, so a client that lost a stream resumes it with
 * Last-Event-ID (a message sent while its stream is gone waits in the store for that).
 */
export class StreamableSession implements Wire {
  onframe?: Wire['onframe'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** The protocol version the client negotiated (priming events need 2025-11-25 or later). */
  protocolVersion?: string;
  private readonly streams = new Map<string, Stream>();
  /** The stream of each request still unanswered, by its id. */
  private readonly requests = new Map<unknown, string>();
  /** Per paused stream: what reopens its requests' upstream streams when the client resumes it (pause). */
  private readonly resumers = new Map<string, Array<() => void>>();
  /** Sends of one stream wait for each other: an event's id comes from the store, asynchronously. */
  private readonly queues = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    readonly id: string,
    private readonly options: StreamableOptions,
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** The session has a request unanswered or a stream open (it is not idle). */
  get busy(): boolean {
    return this.requests.size > 0 || this.streams.size > 0;
  }

  /**
   * A POST's messages. Only notifications and answers: 202 at once. Requests: the response is their stream, which
   * ends once each is answered (one request's answer may go as a JSON body instead: answer.ts).
   */
  post(res: ServerResponse, frames: readonly Frame[], context: FrameContext): void {
    const requests = frames.filter((frame) => frame.kind === 'request');
    if (requests.length === 0) {
      res.writeHead(202).end();
      for (const frame of frames) this.onframe?.(frame, context);
      return;
    }
    const stream: Stream = { id: `${STREAM_IDS}${++streamCount}`, asks: requests.map((request) => request.id) };
    const headers = { 'mcp-session-id': this.id };
    // A call: JSON when its answer is the first thing ready (answer.ts), and primed only if it becomes a stream: an
    // answer sent as JSON leaves nothing in the store. Everything else (the handshake, lists, batches), and every call
    // when streamAfterMs is 0, gets its stream at once, as the SDK's transport gives it, its priming event first.
    const after = this.options.streamAfterMs;
    if (after > 0 && requests.length === 1 && frames.length === 1 && CALLS.has(requests[0]!.method ?? '')) {
      stream.lazy = new LazyAnswer(res, {
        headers,
        keepAliveMs: KEEP_ALIVE_MS,
        openAfterMs: after,
        onDue: () => void this.enqueue(stream.id, () => this.openLazy(stream)),
      });
    } else {
      res.writeHead(200, { ...headers, ...SSE_HEADERS });
      res.flushHeaders();
      stream.res = res;
      void this.enqueue(stream.id, async () => {
        await this.prime(stream);
        const priming = this.primingEvent(stream);
        if (priming !== undefined && this.streams.get(stream.id) === stream) res.write(priming);
      });
    }
    this.open(stream, res);
    for (const request of requests) this.requests.set(keyOf(request.id), stream.id);
    for (const frame of frames) this.onframe?.(frame, context);
  }

  /** A GET: the session's stream for what belongs to no request, or a stream resumed from its last event. */
  async get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const accept = req.headers.accept ?? '';
    if (!accept.includes('text/event-stream'))
      return rpcError(res, 406, 'Not Acceptable: Client must accept text/event-stream');
    const last = req.headers['last-event-id'];
    if (this.options.events && typeof last === 'string' && last !== '') return this.resume(last, res);
    if (this.streams.has(STANDALONE)) return rpcError(res, 409, 'Conflict: Only one SSE stream is allowed per session');
    res.writeHead(200, { 'mcp-session-id': this.id, ...SSE_HEADERS });
    res.flushHeaders();
    this.open({ id: STANDALONE, res }, res);
  }

  send(frame: Frame, options?: SendOptions): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the session is closed'));
    const answer = frame.kind === 'response';
    const key = keyOf(answer ? frame.id : options?.related);
    const streamId = (answer || options?.related !== undefined ? this.requests.get(key) : undefined) ?? STANDALONE;
    if (answer) this.requests.delete(key);
    // Nothing queued and nothing to store (an answer going out as JSON, or no store): written now.
    if (!this.queues.has(streamId) && !this.stores(streamId, answer)) {
      this.deliver(streamId, frame, answer, undefined);
      return Promise.resolve();
    }
    return this.enqueue(streamId, () => this.write(streamId, frame, answer));
  }

  /**
   * Ends the stream of an unanswered request for now, as the upstream that serves it did (SSE polling, SEP-1699): the
   * client resumes it with Last-Event-ID and gets what was sent meanwhile from the event store. Only a stream that
   * sent its priming event can be resumed; any other stays open.
   */
  pause(related: Id, retryMs: number | undefined, resume?: () => void): void {
    const streamId = this.requests.get(keyOf(related));
    const stream = streamId === undefined ? undefined : this.streams.get(streamId);
    if (!stream || !this.options.events) return;
    if (resume) this.resumers.set(stream.id, [...(this.resumers.get(stream.id) ?? []), resume]);
    // Behind what the stream's queue holds (its priming event first), so nothing already sent is cut off. A call's
    // stream still undecided opens now, primed, so that the client has an event to resume from.
    void this.enqueue(stream.id, async () => {
      if (stream.lazy?.undecided && this.streams.get(stream.id) === stream) await this.openLazy(stream);
      if (this.streams.get(stream.id) !== stream || stream.primingId === undefined) return;
      const retry = retryMs !== undefined ? `retry: ${retryMs}\n\n` : undefined;
      if (stream.lazy) {
        stream.lazy.openStream();
        if (retry) stream.lazy.whileStreaming(retry);
      } else if (retry) stream.res?.write(retry);
      this.endStream(stream);
    });
  }

  /** Ends the session: its streams end, and the relay hears that the client is gone. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.resumers.clear();
    for (const stream of [...this.streams.values()]) this.endStream(stream);
    this.onclose?.();
  }

  /** Whether sending this on `streamId` stores an event first (every SSE event of a resumable session). */
  private stores(streamId: string, answer: boolean): boolean {
    if (!this.options.events) return false;
    const lazy = this.streams.get(streamId)?.lazy;
    return !(answer && lazy !== undefined && !lazy.streaming);
  }

  /** Runs `task` after what `streamId`'s queue holds; the queue is let go once it is empty. */
  private enqueue(streamId: string, task: () => Promise<void>): Promise<void> {
    const next = (this.queues.get(streamId) ?? Promise.resolve()).then(task);
    const settled = next.catch(() => undefined);
    this.queues.set(streamId, settled);
    void settled.then(() => {
      if (this.queues.get(streamId) === settled) this.queues.delete(streamId);
    });
    return next;
  }

  private async write(streamId: string, frame: Frame, answer: boolean): Promise<void> {
    const events = this.options.events;
    const stream = this.streams.get(streamId);
    const stored = events !== undefined && this.stores(streamId, answer);
    // A call's stream opens (primed) before its first event is stored, so that event comes after the priming one.
    if (stored && stream?.lazy?.undecided) await this.openLazy(stream);
    // Kept even while the stream is gone: a client that resumes it gets what it missed.
    const eventId = stored ? await events.storeEvent(streamId, frame.blobs.restore(frame.message) as never) : undefined;
    this.deliver(streamId, frame, answer, eventId);
  }

  private deliver(streamId: string, frame: Frame, answer: boolean, eventId: string | undefined): void {
    const current = this.streams.get(streamId);
    if (!current) {
      if (!this.options.events)
        this.options.log.debug({ session: this.id, method: frame.method }, 'nothing to send on: stream gone');
      return;
    }
    if (eventId !== undefined && current.replayed?.has(eventId)) return;
    if (current.lazy) {
      if (answer && !this.stillAsked(streamId)) current.lazy.answer(frame, 200, eventId);
      else current.lazy.event(messageEvent(frame, eventId));
      if (answer && !this.stillAsked(streamId)) this.forget(current);
      return;
    }
    for (const piece of messageEvent(frame, eventId)) current.res?.write(piece);
    if (answer && current.id !== STANDALONE && !this.stillAsked(streamId)) this.endStream(current);
  }

  /** Replays what a stream missed after `lastEventId`, then goes on with it (a request still unanswered on it). */
  private async resume(lastEventId: string, res: ServerResponse): Promise<void> {
    const events = this.options.events!;
    let streamId: string | undefined;
    if (events.getStreamIdForEventId) {
      try {
        streamId = await events.getStreamIdForEventId(lastEventId);
      } catch {
        streamId = undefined;
      }
      if (!streamId) return rpcError(res, 400, 'Invalid event ID format');
      if (this.streams.has(streamId)) return rpcError(res, 409, 'Conflict: Stream already has an active connection');
      // The client is back for its paused requests: the upstream's streams of them are reopened now, as this client
      // would have reopened them talking to the upstream itself (Wire.pause).
      for (const resume of this.resumers.get(streamId) ?? []) resume();
      this.resumers.delete(streamId);
    }
    res.writeHead(200, { 'mcp-session-id': this.id, ...SSE_HEADERS });
    res.flushHeaders();
    const replayed = new Set<string>();
    let resumed: string;
    try {
      resumed = await events.replayEventsAfter(lastEventId, {
        send: async (eventId, message) => {
          replayed.add(eventId);
          res.write(`event: message\nid: ${eventId}\ndata: ${jsonText(message)}\n\n`);
        },
      });
    } catch (error) {
      this.options.log.debug({ err: String(error) }, 'could not resume a stream');
      res.end();
      return;
    }
    if (this.closed || res.destroyed) {
      res.end();
      return;
    }
    const stream: Stream = { id: resumed, res, replayed };
    this.streams.get(resumed)?.res?.end();
    this.open(stream, res);
    if (resumed === STANDALONE || this.stillAsked(resumed)) return;
    // None of the stream's requests is in flight here: those the store holds no answer to are answered now.
    await this.answerLost(stream);
    // A request stream whose requests were all answered ends with the replay that delivered the answers.
    this.endStream(stream);
  }

  /**
   * Answers the requests of a resumed stream that nobody will: this process has none of them in flight and the store
   * holds no answer to them, so the replica that served them stopped before it answered (this one adopted the
   * session since; see session-routing.ts). Each gets a JSON-RPC error, kept in the store too, so that every later
   * resume of the stream has it and no request is answered twice.
   */
  private async answerLost(stream: Stream): Promise<void> {
    const events = this.options.events!;
    let lost: Id[] | undefined;
    try {
      lost = unansweredRequests((await events.streamMessages?.(stream.id)) ?? []);
    } catch (error) {
      this.options.log.warn({ err: String(error), session: this.id }, 'event store: a resumed stream not read');
    }
    for (const id of lost ?? []) {
      const frame = Frame.error(id, LOST_REQUEST_ERROR);
      const eventId = await events.storeEvent(stream.id, frame.message as never);
      if (this.streams.get(stream.id) !== stream) return;
      for (const piece of messageEvent(frame, eventId)) stream.res?.write(piece);
    }
    if (lost?.length) this.options.log.info({ session: this.id, requests: lost.length }, 'answered lost requests');
  }

  private open(stream: Stream, res: ServerResponse): void {
    this.streams.set(stream.id, stream);
    // A call's stream keeps itself alive once it is one (answer.ts).
    if (!stream.lazy) {
      stream.keepAlive = setInterval(() => stream.res?.write(KEEP_ALIVE), KEEP_ALIVE_MS);
      stream.keepAlive.unref();
    }
    // A client that drops a stream does not cancel its requests (2025-11-25): their answers wait in the store.
    res.once('close', () => this.forget(stream));
  }

  /**
   * Stores the priming event of a resumable stream (an id to resume from before anything was sent), first in the
   * stream's queue; what it stores names the stream's requests (primingRecord), for answerLost. Clients of versions
   * before 2025-11-25 cannot take its empty data, and get none.
   */
  private async prime(stream: Stream): Promise<void> {
    const events = this.options.events;
    const version = this.protocolVersion;
    if (!events || version === undefined || version < '2025-11-25') return;
    try {
      stream.primingId = await events.storeEvent(stream.id, primingRecord(stream.asks ?? []));
    } catch (error) {
      this.options.log.debug({ err: String(error) }, 'event store: priming event not stored');
    }
  }

  /** Opens a call's stream as SSE (it waited too long, or something else than its answer goes first), primed. */
  private async openLazy(stream: Stream): Promise<void> {
    if (!stream.lazy?.undecided) return;
    await this.prime(stream);
    if (this.streams.get(stream.id) === stream) stream.lazy.openStream(this.primingEvent(stream));
  }

  private primingEvent(stream: Stream): string | undefined {
    if (stream.primingId === undefined) return undefined;
    const retry = this.options.retryMs !== undefined ? `retry: ${this.options.retryMs}\n` : '';
    return `id: ${stream.primingId}\n${retry}data: \n\n`;
  }

  private stillAsked(streamId: string): boolean {
    for (const id of this.requests.values()) if (id === streamId) return true;
    return false;
  }

  private endStream(stream: Stream): void {
    this.forget(stream);
    if (stream.lazy) stream.lazy.end();
    else stream.res?.end();
  }

  private forget(stream: Stream): void {
    clearInterval(stream.keepAlive);
    if (this.streams.get(stream.id) === stream) this.streams.delete(stream.id);
  }
}
