// Small statistics helpers for benchmark samples.

/** The median of a list of numbers (the mean of the two middle values for an even count). */
export function median(values) {
  const xs = finite(values).sort((a, b) => a - b);
  if (xs.length === 0) return NaN;
  const mid = xs.length >> 1;
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

export function min(values) {
  const xs = finite(values);
  return xs.length ? Math.min(...xs) : NaN;
}

export function max(values) {
  const xs = finite(values);
  return xs.length ? Math.max(...xs) : NaN;
}

export function mean(values) {
  const xs = finite(values);
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}

/** { median, min, max, n } of the finite values. */
export function summarize(values) {
  const xs = finite(values);
  return { median: median(xs), min: min(xs), max: max(xs), n: xs.length };
}

function finite(values) {
  return values.filter((v) => typeof v === 'number' && Number.isFinite(v));
}

/**
 * The p-th percentile (0 < p ≤ 100) by nearest rank: the smallest value with at least p% of the values at or below it.
 */
export function percentile(values, p) {
  const xs = finite(values).sort((a, b) => a - b);
  if (xs.length === 0) return NaN;
  return xs[Math.min(xs.length, Math.max(1, Math.ceil((p / 100) * xs.length))) - 1];
}

/** { median, p99, mean, n } of a latency sample. */
export function distribution(values) {
  const xs = finite(values);
  return { median: median(xs), p99: percentile(xs, 99), mean: mean(xs), n: xs.length };
}
