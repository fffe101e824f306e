import type { Frame } from '../wire/frame.js';
import type { FrameContext, Wire } from '../wire/wire.js';

/** What holdFrames gives: the first frame, the release, and a way to close without telling. */
export interface FrameHold {
  /** The first frame that came in; undefined if the wire closed before one did. */
  first: Promise<Frame | undefined>;
  /** Passes on what was held, in order, and everything after it as it comes. */
  open(): void;
  /** The wire's close is no longer reported to `onclose` (the proxy closes it itself, ending). */
  quiet(): void;
}

/**
 * Keeps a wire's incoming frames from whoever reads them (the session attached to it) until open(), while the first
 * is already known: the stdio entry reads the client's `initialize` before the upstreams connect, so they are started
 * as that client rather than started and then started again (cli/run.ts). Also tells `onclose` when the wire closes.
 */
export function holdFrames(wire: Wire, onclose: () => void): FrameHold {
  const deliver = wire.onframe;
  const closed = wire.onclose;
  let held: [Frame, FrameContext | undefined][] | undefined = [];
  let sawFirst!: (frame: Frame | undefined) => void;
  const first = new Promise<Frame | undefined>((resolve) => (sawFirst = resolve));
  let report = true;
  wire.onframe = (frame, context) => {
    if (!held) return deliver?.(frame, context);
    sawFirst(frame);
    held.push([frame, context]);
  };
  wire.onclose = () => {
    sawFirst(undefined);
    closed?.();
    if (report) onclose();
  };
  return {
    first,
    open() {
      const queue = held ?? [];
      held = undefined;
      for (const [frame, context] of queue) deliver?.(frame, context);
    },
    quiet() {
      report = false;
    },
  };
}
