const UNITS = ['KB', 'MB', 'GB'] as const;

/** `512 B`, `142.4 KB`, `1.0 MB`: 1024-based with one decimal, for summaries people and models read. */
export function humanSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1024)
    return `${Number.isFinite(bytes) ? Math.max(0, Math.round(bytes)) : 0} B`;
  let value = bytes / 1024;
  let unit = 0;
  // Step up when rounding would print `1024.0 KB` rather than `1.0 MB`.
  while (unit < UNITS.length - 1 && Number(value.toFixed(1)) >= 1024) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${UNITS[unit]}`;
}
