// Partial deep matching of parsed JSON-RPC messages, shared by the scripted server (which rule answers a message,
// what a `waitFor` waits for) and the raw client (what a step waits for).

/**
 * Whether `value` has everything `pattern` has: objects match key by key (extra keys in `value` are fine), anything
 * else must be equal. A pattern of `{ $exists: false }` matches a missing key.
 */
export function matches(value, pattern) {
  if (pattern !== null && typeof pattern === 'object' && !Array.isArray(pattern)) {
    if ('$exists' in pattern) return (value !== undefined) === pattern.$exists;
    if (value === null || typeof value !== 'object') return false;
    return Object.entries(pattern).every(([key, sub]) => matches(value[key], sub));
  }
  if (Array.isArray(pattern)) {
    return Array.isArray(value) && value.length === pattern.length && pattern.every((p, i) => matches(value[i], p));
  }
  return Object.is(value, pattern) || value === pattern;
}
