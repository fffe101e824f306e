/**
 * The shape of a JSON document in a few hundred characters: enough to decide whether to open it and what to
 * look for, never its content.
 */
import { defineOwn } from '../detect/define-own.js';

const MAX_KEYS = 20;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `string(12 chars)`, `array(340)`, `object(5 keys)`, `number`, `boolean`, `null`. */
export function describeJsonValue(v: unknown): string {
  if (typeof v === 'string') return `string(${plural(v.length, 'char')})`;
  if (Array.isArray(v)) return `array(${v.length})`;
  if (v === null) return 'null';
  if (typeof v === 'object') return `object(${plural(Object.keys(v).length, 'key')})`;
  return typeof v;
}

function firstKeys(o: object): string[] {
  const keys = Object.keys(o);
  const shown = keys.slice(0, MAX_KEYS);
  if (keys.length > MAX_KEYS) shown.push(`+${keys.length - MAX_KEYS} more`);
  return shown;
}

/**
 * Objects: `{ type: 'object', keys: { name: 'string(12 chars)', ... } }` with the first 20 keys, and
 * `more: '+N more'` past them. Arrays: `{ type: 'array', length, first: <description>, firstKeys?: [...] }`.
 * Anything else: `{ type: <description> }`.
 */
export function jsonOutline(v: unknown): Record<string, unknown> {
  if (Array.isArray(v)) {
    const outline: Record<string, unknown> = { type: 'array', length: v.length };
    if (v.length > 0) {
      outline.first = describeJsonValue(v[0]);
      if (typeof v[0] === 'object' && v[0] !== null && !Array.isArray(v[0])) outline.firstKeys = firstKeys(v[0]);
    }
    return outline;
  }
  if (typeof v === 'object' && v !== null) {
    const entries = Object.entries(v);
    const keys: Record<string, string> = {};
    for (const [key, value] of entries.slice(0, MAX_KEYS)) defineOwn(keys, key, describeJsonValue(value));
    const outline: Record<string, unknown> = { type: 'object', keys };
    if (entries.length > MAX_KEYS) outline.more = `+${entries.length - MAX_KEYS} more`;
    return outline;
  }
  return { type: describeJsonValue(v) };
}
