/** Verdicts kept: a client sends the same envelope with every request, so a few clients' worth is plenty. */
const VERDICTS_KEPT = 32;

/**
 * The SDK's verdicts on 2026-07-28 envelopes, kept per envelope (the lean paths take a call past the SDK only when
 * the SDK's own rule accepts its envelope: lean-dispatch.ts, http/lean-modern-post.ts). A client sends the same
 * envelope every time: one equal to the last it accepted is known without its JSON text, which costs more to make
 * and hash than the comparison.
 */
export class EnvelopeVerdicts {
  private readonly verdicts = new Map<string, boolean>();
  private lastHeld?: Record<string, unknown>;

  constructor(private readonly judge: (envelope: Record<string, unknown>) => boolean) {}

  holds(envelope: Record<string, unknown>): boolean {
    if (this.lastHeld !== undefined && sameJson(envelope, this.lastHeld)) return true;
    const key = JSON.stringify(envelope);
    let verdict = this.verdicts.get(key);
    if (verdict === undefined) {
      if (this.verdicts.size >= VERDICTS_KEPT) this.verdicts.clear();
      verdict = this.judge(envelope);
      this.verdicts.set(key, verdict);
    }
    if (verdict) this.lastHeld = envelope;
    return verdict;
  }
}

/** Whether two parsed JSON values are equal (object key order aside). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(b, key)) return false;
    if (!sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}
