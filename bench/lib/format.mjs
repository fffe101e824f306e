// Human-readable formatting of benchmark numbers. Every formatter maps a missing value to "—".

const MISSING = '—';
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

/** Bytes in binary units: "512 B", "1.50 KiB", "70.0 MiB". */
export function bytes(v) {
  if (!isNum(v)) return MISSING;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let x = v;
  let u = 0;
  while (Math.abs(x) >= 1024 && u < units.length - 1) {
    x /= 1024;
    u++;
  }
  if (u === 0) return `${Math.round(x)} B`;
  return `${x.toFixed(x >= 100 ? 0 : x >= 10 ? 1 : 2)} ${units[u]}`;
}

/** An exact byte count with thousands separators: "73,400,452 B". */
export function exactBytes(v) {
  return isNum(v) ? `${Math.round(v).toLocaleString('en-US')} B` : MISSING;
}

/** Milliseconds: "4.2 ms", "812 ms", "12.3 s", "2 min 05 s". */
export function ms(v) {
  if (!isNum(v)) return MISSING;
  if (v < 10) return `${v.toFixed(1)} ms`;
  if (v < 1000) return `${Math.round(v)} ms`;
  if (v < 60_000) return `${(v / 1000).toFixed(v < 10_000 ? 2 : 1)} s`;
  const s = Math.round(v / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** A ratio: "×12.3". */
export function ratio(v) {
  if (!isNum(v)) return MISSING;
  return `×${v >= 100 ? Math.round(v) : v >= 10 ? v.toFixed(1) : v.toFixed(2)}`;
}

/** "min–max" of a summarize() result with the given formatter, or "—". */
export function range(summary, fmt) {
  if (!summary || !isNum(summary.min)) return MISSING;
  return summary.n > 1 ? `${fmt(summary.min)}–${fmt(summary.max)}` : fmt(summary.min);
}

/** A short latency with three significant digits: "0.412 ms", "2.96 ms", "41.2 ms", "812 ms". */
export function latency(v) {
  if (!isNum(v)) return MISSING;
  const a = Math.abs(v);
  if (a >= 1000) return ms(v);
  return `${v.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3)} ms`;
}

/** A latency difference with its sign: "+0.412 ms", "−1.20 ms". */
export function signedLatency(v) {
  if (!isNum(v)) return MISSING;
  const s = latency(Math.abs(v));
  return /^0\.0+ ms$/.test(s) ? `±${s}` : `${v < 0 ? '−' : '+'}${s}`;
}

/** A percentage: "12.3 %", "−4.0 %" (signed when `signed`). */
export function percent(v, signed = false) {
  if (!isNum(v)) return MISSING;
  const s = `${Math.abs(v).toFixed(Math.abs(v) >= 100 ? 0 : 1)} %`;
  if (/^0\.0 %$/.test(s)) return signed ? `±${s}` : s;
  return v < 0 ? `−${s}` : signed ? `+${s}` : s;
}

/** A rate per second: "1,283/s", "4.20/s". */
export function rate(v) {
  if (!isNum(v)) return MISSING;
  return `${v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(v >= 10 ? 1 : 2)}/s`;
}

/** Megabytes per second, 1 MB = 2^20 bytes as everywhere in this suite: "412 MB/s". */
export function mbps(v) {
  if (!isNum(v)) return MISSING;
  return `${v >= 100 ? Math.round(v) : v.toFixed(1)} MB/s`;
}
