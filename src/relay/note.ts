import type { Frame, Id } from '../wire/frame.js';
import type { Party } from './call.js';

/** Where a notification goes: a party, the frame it gets, and the request of its own the frame belongs to. */
export interface Delivery {
  to: Party;
  frame: Frame;
  /** The receiver's request the notification belongs to (over HTTP it goes on that request's stream). */
  related?: Id;
}

/**
 * A notification on its way through the relay, from a client or an upstream. Routing decides who gets it, in what
 * form (`deliver`); a notification nobody is given is dropped. One a proxy consumes itself (a list change it
 * re-lists) is never delivered.
 */
export class Note {
  readonly deliveries: Delivery[] = [];

  constructor(
    public frame: Frame,
    readonly from: Party,
  ) {}

  get method(): string {
    return this.frame.method ?? '';
  }

  get params(): Record<string, unknown> {
    return this.frame.params;
  }

  deliver(to: Party, frame: Frame = this.frame, related?: Id): void {
    this.deliveries.push({ to, frame, ...(related !== undefined ? { related } : {}) });
  }
}
