import type { Frame } from '../wire/frame.js';
import type { Call } from './call.js';
import type { Note } from './note.js';

/** The rest of the chain for a request: resolves with the answer frame (a result or an error). */
export type Next = (call: Call) => Promise<Frame>;

/**
 * One cross-cutting concern of the relay, in one file: what it does to the requests and notifications that pass
 * (both directions: a client's and an upstream's). A request interceptor calls `next` to go on (or answers itself),
 * and may change the call before and the answer after; a notification interceptor passes the note on, changed, or
 * stops it.
 *
 * `takes` and `hears` say which messages it has anything to do with, by method and by who sent them (a client or an
 * upstream); without them it sees every one. They describe the interceptor, not a message: the chain a kind of
 * message runs through is built from them once, so a call passes only the interceptors that concern it.
 */
export interface Interceptor {
  readonly name: string;
  request?(call: Call, next: Next): Promise<Frame>;
  notification?(note: Note, next: (note: Note) => void): void;
  takes?(method: string, fromClient: boolean): boolean;
  hears?(method: string, fromClient: boolean): boolean;
}

/** The end of the chain: what sends a request or a notification on to where the chain routed it. */
export interface Terminal {
  request: Next;
  notification(note: Note): void;
}

/** Chains kept per kind of message; beyond this many kinds (a client inventing methods) they are built per message. */
const MAX_KINDS = 512;

/**
 * Composes the interceptors, outermost first, around the terminal (as undici's Dispatcher.compose does): for each
 * kind of message (method, and who sent it) one function, built the first time that kind passes from the
 * interceptors that take it.
 */
export function compose(
  interceptors: readonly Interceptor[],
  terminal: Terminal,
): { request: Next; notification: (note: Note) => void } {
  // By who sent it, then by method: looked up without making a key string per message.
  const requests = [new Map<string, Next>(), new Map<string, Next>()];
  const notifications = [new Map<string, (note: Note) => void>(), new Map<string, (note: Note) => void>()];
  return {
    request: (call) => {
      const fromClient = call.fromClient;
      const method = call.method;
      const kinds = requests[fromClient ? 0 : 1]!;
      let chain = kinds.get(method);
      if (!chain) {
        chain = requestChain(interceptors, terminal, method, fromClient);
        if (kinds.size < MAX_KINDS) kinds.set(method, chain);
      }
      return chain(call);
    },
    notification: (note) => {
      const fromClient = note.from.side === 'client';
      const method = note.method;
      const kinds = notifications[fromClient ? 0 : 1]!;
      let chain = kinds.get(method);
      if (!chain) {
        chain = notificationChain(interceptors, terminal, method, fromClient);
        if (kinds.size < MAX_KINDS) kinds.set(method, chain);
      }
      chain(note);
    },
  };
}

function requestChain(
  interceptors: readonly Interceptor[],
  terminal: Terminal,
  method: string,
  fromClient: boolean,
): Next {
  let request: Next = terminal.request;
  for (const interceptor of [...interceptors].reverse()) {
    if (!interceptor.request || (interceptor.takes && !interceptor.takes(method, fromClient))) continue;
    const inner = request;
    const hook = interceptor.request.bind(interceptor);
    // An interceptor need not be async (the fast path of most is `return next(call)`, and an async function costs
    // a promise and microtask turns per call): what it throws becomes the rejection an async one would return.
    request = (call) => {
      try {
        return hook(call, inner);
      } catch (error) {
        return Promise.reject(error);
      }
    };
  }
  return request;
}

function notificationChain(
  interceptors: readonly Interceptor[],
  terminal: Terminal,
  method: string,
  fromClient: boolean,
): (note: Note) => void {
  let notification = (note: Note) => terminal.notification(note);
  for (const interceptor of [...interceptors].reverse()) {
    if (!interceptor.notification || (interceptor.hears && !interceptor.hears(method, fromClient))) continue;
    const inner = notification;
    const hook = interceptor.notification.bind(interceptor);
    notification = (note) => hook(note, inner);
  }
  return notification;
}
