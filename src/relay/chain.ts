import type { Frame } from '../wire/frame.js';
import type { Call } from './call.js';
import type { Note } from './note.js';

/** The rest of the chain for a request: resolves with the answer frame (a result or an error). */
export type Next = (call: Call) => Promise<Frame>;

/**
 * One cross-cutting concern of the relay, in one file: what it does to the requests and notifications that pass
 * (both directions: a client's and an upstream's). A request interceptor calls `next` to go on (or answers itself),
 * and may change the call before and the answer after; a notification interceptor passes the note on, changed, or
 * stops it. An interceptor that has nothing to do for a message calls `next` with it at once.
 */
export interface Interceptor {
  readonly name: string;
  request?(call: Call, next: Next): Promise<Frame>;
  notification?(note: Note, next: (note: Note) => void): void;
}

/** The end of the chain: what sends a request or a notification on to where the chain routed it. */
export interface Terminal {
  request: Next;
  notification(note: Note): void;
}

/**
 * Composes the interceptors, outermost first, around the terminal (as undici's Dispatcher.compose does): one
 * function for requests and one for notifications, built once.
 */
export function compose(
  interceptors: readonly Interceptor[],
  terminal: Terminal,
): { request: Next; notification: (note: Note) => void } {
  let request: Next = terminal.request;
  let notification = (note: Note) => terminal.notification(note);
  for (const interceptor of [...interceptors].reverse()) {
    if (interceptor.request) {
      const inner = request;
      const hook = interceptor.request.bind(interceptor);
      request = (call) => hook(call, inner);
    }
    if (interceptor.notification) {
      const inner = notification;
      const hook = interceptor.notification.bind(interceptor);
      notification = (note) => hook(note, inner);
    }
  }
  return { request, notification };
}
