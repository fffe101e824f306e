// What a raw client has received, for the scenario's steps to wait on. A step that waits for a message claims the
// first unclaimed one that matches, so two steps waiting for "a request elicitation/create" get the first and the
// second one.
import { matches } from './match.mjs';

export class Inbox {
  #items = [];
  #events = [];
  #waiters = new Set();

  /** A received message text (a stdout line, a JSON body, an SSE event's data). */
  add(raw) {
    let message;
    try {
      message = JSON.parse(raw);
    } catch {
      return;
    }
    this.#items.push({ raw, message, claimed: false });
    this.#wake();
  }

  /** An SSE event other than `message` (the legacy transport's `endpoint`). */
  addEvent(event, data) {
    this.#events.push({ event, data });
    this.#wake();
  }

  all() {
    return this.#items;
  }

  #wake() {
    for (const waiter of this.#waiters) waiter();
  }

  #until(find, timeoutMs, what) {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found === undefined) return;
        this.#waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        const last = this.#items.slice(-3).map((item) => item.raw.slice(0, 300));
        reject(new Error(`waited ${timeoutMs} ms for ${what}; the last messages received:\n${last.join('\n')}`));
      }, timeoutMs);
      this.#waiters.add(check);
      check();
    });
  }

  /** Claims the first unclaimed message matching `pattern` (a partial deep match, or a predicate). */
  claim(pattern, timeoutMs, what = JSON.stringify(pattern)) {
    const test = typeof pattern === 'function' ? pattern : (message) => matches(message, pattern);
    return this.#until(
      () => {
        const item = this.#items.find((candidate) => !candidate.claimed && test(candidate.message));
        if (item) item.claimed = true;
        return item;
      },
      timeoutMs,
      what,
    );
  }

  waitEvent(event, timeoutMs) {
    return this.#until(() => this.#events.find((e) => e.event === event)?.data, timeoutMs, `an SSE ${event} event`);
  }
}
